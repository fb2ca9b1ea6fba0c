#include "core/runtime/fault_injection.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace attnlab::core {
namespace {

struct KillRequest {
  std::string point;
  std::int64_t step = -1;
};

/// ATTNLAB_KILL_AT, read once: "<point>@<step>".
const KillRequest& killRequest() {
  static const KillRequest request = [] {
    KillRequest r;
    const char* value = std::getenv("ATTNLAB_KILL_AT");
    if (value == nullptr) return r;
    const char* at = std::strrchr(value, '@');
    if (at == nullptr) return r;
    r.point.assign(value, at);
    r.step = std::strtoll(at + 1, nullptr, 10);
    return r;
  }();
  return request;
}

}  // namespace

void faultPoint(const char* point, std::int64_t step) {
  const KillRequest& request = killRequest();
  if (request.step != step || request.point != point) return;
  ::kill(::getpid(), SIGKILL);
}

}  // namespace attnlab::core
