#include "app/cli/command_errors.h"

#include "core/errors/error.h"

#include <cstdio>
#include <exception>

namespace attnlab::app {

int runReportingErrors(const char* command, const std::function<int()>& body) {
  try {
    return body();
  } catch (const attnlab::Error& e) {
    std::fprintf(stderr, "attnlab-cli %s: error: %s\n", command, e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab-cli %s: unexpected error: %s\n", command, e.what());
  }
  return 1;
}

}  // namespace attnlab::app
