#include "core/hdf5/hdf5_error.h"

#include "core/errors/error.h"

#include <hdf5.h>

#include <vector>

namespace attnlab::core::hdf5 {
namespace {

herr_t collectMessage(unsigned /*n*/, const H5E_error2_t* err, void* clientData) {
  auto* messages = static_cast<std::vector<std::string>*>(clientData);
  std::string text = err->desc ? err->desc : "";
  if (text.empty()) {
    char minor[256] = {};
    if (H5Eget_msg(err->min_num, nullptr, minor, sizeof minor) > 0) text = minor;
  }
  messages->push_back(std::move(text));
  return 0;
}

[[noreturn]] void raise(const Context& ctx, const std::string& objectPath,
                        const std::string& reason) {
  std::string where = ctx.filePath;
  if (!objectPath.empty()) where += (where.empty() ? "" : ":") + objectPath;
  if (ctx.domain == ErrorDomain::Checkpoint) throw attnlab::CheckpointError(where, reason);
  throw attnlab::RunLogError(where, reason);
}

}  // namespace

void silenceHdf5ErrorPrinting() noexcept {
  // Before the library's first use: no clean-up at exit. A file whose close failed (a write
  // that failed part-way on a full disk) stays in HDF5's tables, and the at-exit clean-up
  // then crashes the process after its work is done, turning a clear error into a
  // segmentation fault. Every object this project opens is closed by its own handle.
  static const bool noCleanUpAtExit = (H5dont_atexit(), true);
  (void)noCleanUpAtExit;
  thread_local bool silenced = false;
  if (!silenced) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    silenced = true;
  }
}

std::string innermostHdf5Message() {
  std::vector<std::string> messages;
  // Upward starts at the function that detected the failure: the most specific message
  // ("truncated file: eof = ...") rather than the API's generic "unable to open file".
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collectMessage, &messages);
  for (const auto& m : messages) {
    if (!m.empty()) return m;
  }
  return {};
}

void throwError(const Context& ctx, const std::string& objectPath, const std::string& action) {
  std::string message = innermostHdf5Message();
  H5Eclear2(H5E_DEFAULT);
  raise(ctx, objectPath, message.empty() ? action : action + ": " + message);
}

void throwPlainError(const Context& ctx, const std::string& objectPath, const std::string& reason) {
  raise(ctx, objectPath, reason);
}

}  // namespace attnlab::core::hdf5
