#include "core/runtime/memory_policy.h"

#include <malloc.h>

namespace attnlab::core {

void releaseFreedMemory() {
  malloc_trim(0);
}

bool FreedMemoryReleaser::tick() {
  const auto now = std::chrono::steady_clock::now();
  if (now - m_last < m_period) return false;
  releaseFreedMemory();
  m_last = std::chrono::steady_clock::now();
  return true;
}

}  // namespace attnlab::core
