#pragma once

// glibc's malloc raises its mmap threshold each time a large mmapped block is freed (up to
// 32 MB); after that, tensor-sized blocks come from the heap arenas, and freed ones stay
// resident until the arena's top is free. In the desktop app, where the engine thread, the
// GUI thread and the log reader allocate and free blocks of many sizes, resident memory grew
// by 100-200 MB a minute while the live heap stayed near 600 MB (heaptrack). Fixing the
// threshold instead (mallopt) kept memory level but made every training step 50% slower
// (fresh pages for each large tensor), so the app gives freed pages back now and then.
// docs/hardening.md, Soak.

#include <chrono>

namespace attnlab::core {

/// Returns the free pages of every malloc arena to the system (glibc's malloc_trim), at most
/// once per `period`. Call tick() between steps on the engine thread, never on the GUI
/// thread: malloc_trim walks every arena.
class FreedMemoryReleaser {
 public:
  explicit FreedMemoryReleaser(std::chrono::seconds period = std::chrono::seconds(10))
      : m_period(period) {}

  void tick();

 private:
  std::chrono::steady_clock::duration m_period;
  std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

}  // namespace attnlab::core
