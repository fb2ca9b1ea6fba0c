#include "core/runtime/memory_policy.h"

#include <malloc.h>

namespace attnlab::core {

void FreedMemoryReleaser::tick() {
  const auto now = std::chrono::steady_clock::now();
  if (now - m_last < m_period) return;
  malloc_trim(0);
  m_last = std::chrono::steady_clock::now();
}

}  // namespace attnlab::core
