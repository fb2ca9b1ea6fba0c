#include "core/tokenizer/sentencepiece_library.h"

#include "core/errors/error.h"
#include "core/runtime/executable_path.h"
#include "core/tokenizer/sp_bridge/sp_bridge_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <sstream>
#include <system_error>

#ifndef ATTNLAB_SPBRIDGE_FILENAME
#define ATTNLAB_SPBRIDGE_FILENAME "libattnlab_spbridge.so"
#endif
#ifndef ATTNLAB_PLUGIN_SUBDIR
#define ATTNLAB_PLUGIN_SUBDIR "lib/attnlab"
#endif
#ifndef ATTNLAB_INSTALL_PREFIX
#define ATTNLAB_INSTALL_PREFIX "/usr/local"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define ATTNLAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTNLAB_ASAN 1
#endif
#endif

namespace attnlab::core {
namespace {

namespace fs = std::filesystem;

struct LoadState {
  std::once_flag once;
  const attnlab_spbridge_api* api = nullptr;
  fs::path path;
  std::string error;
};

LoadState& state() {
  static LoadState s;
  return s;
}

void loadOnce(LoadState& s) {
#ifdef ATTNLAB_ASAN
  // AddressSanitizer rejects RTLD_DEEPBIND, and without it the bridge's bundled
  // protobuf would bind to LibTorch's and crash.
  s.error =
      "the SentencePiece tokenizer is unavailable in AddressSanitizer builds (RTLD_DEEPBIND is "
      "not supported under ASan); use a release or debug build for tokenizer work";
  return;
#else
  std::ostringstream tried;
  for (const fs::path& candidate : SentencePieceLibrary::candidatePaths()) {
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) {
      tried << "\n  " << candidate.string() << " (not found)";
      continue;
    }
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (handle == nullptr) {
      tried << "\n  " << candidate.string() << " (dlopen failed: " << dlerror() << ")";
      continue;
    }
    auto entry = reinterpret_cast<attnlab_spbridge_entry_fn>(dlsym(handle, ATTNLAB_SPBRIDGE_ENTRY));
    if (entry == nullptr) {
      tried << "\n  " << candidate.string() << " (no symbol " ATTNLAB_SPBRIDGE_ENTRY ")";
      dlclose(handle);
      continue;
    }
    const attnlab_spbridge_api* api = entry();
    if (api == nullptr || api->abi_version != ATTNLAB_SPBRIDGE_ABI_VERSION) {
      tried << "\n  " << candidate.string() << " (ABI version " << (api ? api->abi_version : -1)
            << ", expected " << ATTNLAB_SPBRIDGE_ABI_VERSION << ")";
      dlclose(handle);
      continue;
    }
    // The handle stays open for the life of the process: processors hold code in it.
    s.api = api;
    s.path = candidate;
    return;
  }
  s.error =
      "cannot load the SentencePiece bridge " ATTNLAB_SPBRIDGE_FILENAME "; tried:" + tried.str() +
      "\nset ATTNLAB_SPBRIDGE to its full path or reinstall AttnLab";
#endif
}

}  // namespace

std::vector<fs::path> SentencePieceLibrary::candidatePaths() {
  std::vector<fs::path> paths;
  if (const char* env = std::getenv("ATTNLAB_SPBRIDGE"); env != nullptr && *env != '\0') {
    paths.emplace_back(env);
  }
  const fs::path exeDir = executableDirectory();
  if (!exeDir.empty()) {
    paths.push_back(exeDir.parent_path() / ATTNLAB_PLUGIN_SUBDIR / ATTNLAB_SPBRIDGE_FILENAME);
    paths.push_back(exeDir / ATTNLAB_SPBRIDGE_FILENAME);
  }
  paths.push_back(fs::path(ATTNLAB_INSTALL_PREFIX) / ATTNLAB_PLUGIN_SUBDIR /
                  ATTNLAB_SPBRIDGE_FILENAME);
  return paths;
}

const attnlab_spbridge_api& SentencePieceLibrary::api() {
  LoadState& s = state();
  std::call_once(s.once, [&s] { loadOnce(s); });
  if (s.api == nullptr) throw TokenizerError("SentencePiece", s.error);
  return *s.api;
}

fs::path SentencePieceLibrary::loadedPath() {
  return state().path;
}

}  // namespace attnlab::core
