#include "core/tokenizer/sentencepiece_library.h"

#include "core/errors/error.h"
#include "core/runtime/executable_path.h"
#include "core/tokenizer/sentencepiece_host_client.h"
#include "core/tokenizer/sp_bridge/sp_bridge_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string_view>
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

#ifndef ATTNLAB_SPBRIDGE_HOST_FILENAME
#define ATTNLAB_SPBRIDGE_HOST_FILENAME "attnlab-spbridge-host"
#endif

// Sanitizer runtimes refuse dlopen(RTLD_DEEPBIND): such builds always use the host process.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ATTNLAB_NO_DEEPBIND 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ATTNLAB_NO_DEEPBIND 1
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

// True when the bridge is to be served by attnlab-spbridge-host instead of dlopen'ed here.
bool useHostProcess() {
#ifdef ATTNLAB_NO_DEEPBIND
  return true;
#else
  const char* mode = std::getenv("ATTNLAB_SPBRIDGE_MODE");
  return mode != nullptr && std::string_view(mode) == "process";
#endif
}

// dlopen in this process's own symbol scope, RTLD_DEEPBIND so that the bridge's bundled
// protobuf binds inside it. Null with `why` set on failure.
const attnlab_spbridge_api* openInProcess(const fs::path& candidate, std::string& why) {
  void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (handle == nullptr) {
    why = std::string("dlopen failed: ") + dlerror();
    return nullptr;
  }
  auto entry = reinterpret_cast<attnlab_spbridge_entry_fn>(dlsym(handle, ATTNLAB_SPBRIDGE_ENTRY));
  if (entry == nullptr) {
    why = "no symbol " ATTNLAB_SPBRIDGE_ENTRY;
    dlclose(handle);
    return nullptr;
  }
  const attnlab_spbridge_api* api = entry();
  if (api == nullptr || api->abi_version != ATTNLAB_SPBRIDGE_ABI_VERSION) {
    why = "ABI version " + std::to_string(api ? api->abi_version : -1) + ", expected " +
          std::to_string(ATTNLAB_SPBRIDGE_ABI_VERSION);
    dlclose(handle);
    return nullptr;
  }
  // The handle stays open for the life of the process: processors hold code in it.
  return api;
}

void loadOnce(LoadState& s) {
  const bool viaHost = useHostProcess();
  std::ostringstream tried;
  for (const fs::path& candidate : SentencePieceLibrary::candidatePaths()) {
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) {
      tried << "\n  " << candidate.string() << " (not found)";
      continue;
    }
    std::string why;
    const fs::path host = candidate.parent_path() / ATTNLAB_SPBRIDGE_HOST_FILENAME;
    const attnlab_spbridge_api* api =
        viaHost ? startSentencePieceHost(host, candidate, why) : openInProcess(candidate, why);
    if (api == nullptr) {
      tried << "\n  " << candidate.string() << " (" << why << ")";
      continue;
    }
    s.api = api;
    s.path = candidate;
    return;
  }
  s.error =
      "cannot load the SentencePiece bridge " ATTNLAB_SPBRIDGE_FILENAME "; tried:" + tried.str() +
      "\nset ATTNLAB_SPBRIDGE to its full path or reinstall AttnLab";
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
