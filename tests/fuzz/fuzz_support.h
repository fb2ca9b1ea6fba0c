#pragma once

// Shared by the libFuzzer harnesses in tests/fuzz (docs/hardening.md, "Fuzzing").
//
// A harness feeds its input to one reader and lets through only the errors that reader's
// header documents (catch them where the reader is called). Anything else is a finding and
// ends the process through reportFinding(): an undocumented exception type, an error without
// a place or a reason, or a result that breaks the reader's documented guarantees.
// AddressSanitizer, UndefinedBehaviorSanitizer, aborts and libFuzzer's own limits (time,
// memory, a single huge allocation) are findings too.

#include "core/errors/error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <typeinfo>

#include <unistd.h>

namespace attnlab::fuzz {

#ifdef ATTNLAB_FUZZ_REPLAY
/// The regression test (tests/analysis/test_fuzz_regressions.cpp) replays the seeds and the
/// committed crash inputs through these same harnesses in the normal (GCC) build; there a
/// finding is thrown, and caught by the test, which fails with its text. Not a
/// std::exception, so no harness's own catch clauses can take it for a reader's error.
struct Finding {
  std::string what;
};
[[noreturn]] inline void reportFinding(const std::string& what) {
  throw Finding{what};
}
#else
/// Prints what went wrong and aborts, so that libFuzzer records the input as a crash.
[[noreturn]] inline void reportFinding(const std::string& what) {
  std::fprintf(stderr, "\n==attnlab-fuzz== FINDING: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}
#endif

/// A project error must say where and what (error.h): both parts non-empty.
inline void checkClearError(const attnlab::Error& e) {
  if (e.reason().empty()) {
    reportFinding(std::string(typeid(e).name()) + " without a reason: " + e.what());
  }
  if (e.where().empty()) {
    reportFinding(std::string(typeid(e).name()) +
                  " without a place (where() is empty): " + e.what());
  }
}

/// An exception the reader does not document escaped it.
[[noreturn]] inline void reportUndocumented(const std::exception& e) {
  reportFinding(std::string("undocumented exception ") + typeid(e).name() + ": " + e.what());
}

/// The bytes as text.
inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A folder of this process's own under $TMPDIR (or /dev/shm when it exists, else /tmp),
/// removed when the process exits normally.
inline const std::filesystem::path& scratchFolder() {
  static const std::filesystem::path folder = [] {
    std::filesystem::path base = "/tmp";
    if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') {
      base = tmp;
    } else if (std::error_code ec; std::filesystem::is_directory("/dev/shm", ec)) {
      base = "/dev/shm";
    }
    std::filesystem::path p = base / ("attnlab-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratchFolder(), ec);
    });
    return p;
  }();
  return folder;
}

/// Writes the input to `<scratch folder>/<name>` (replacing it) and returns the path.
inline std::filesystem::path writeScratchFile(const std::string& name, const std::uint8_t* data,
                                              std::size_t size) {
  const std::filesystem::path path = scratchFolder() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) reportFinding("harness: cannot write the scratch file " + path.string());
  return path;
}

}  // namespace attnlab::fuzz
