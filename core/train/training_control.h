#pragma once

// The control side of a run, shared between the thread that trains and whoever steers it
// (a CLI signal handler, the app's controller). Requests are flags the engine polls between
// steps, between evaluation batches and between data-preparation phases; nothing here
// interrupts a step.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace attnlab::core {

class TrainingControl {
 public:
  /// Finish the current step (or evaluation batch, or data phase), write a checkpoint,
  /// close the log, return. Safe from a signal handler (an atomic store only).
  void requestStop() noexcept;
  /// Hold (true) or go on (false) at the next step boundary. A stop ends a pause.
  void setPaused(bool paused);
  /// Write a checkpoint after the current step (once per request).
  void requestCheckpoint() noexcept;

  /// Stop once `step` steps are done (a checkpoint is written there), as if asked then:
  /// a run can be cut into sessions that end at a known step (a scheduler's time slice, a
  /// test of resume). Every rank of a data-parallel run is given the same step.
  void stopAfterStep(std::int64_t step) noexcept { m_stopAfter.store(step); }
  /// Whether a stop is due with `done` steps done (a request, or the step above reached).
  bool stopDue(std::int64_t done) const noexcept {
    const std::int64_t after = m_stopAfter.load(std::memory_order_relaxed);
    return stopRequested() || (after >= 0 && done >= after);
  }

  /// Also stop when `flag` becomes true (e.g. the CLI's SIGINT flag); it must outlive this.
  void linkStopFlag(const std::atomic<bool>* flag) noexcept { m_linkedStop = flag; }

  bool stopRequested() const noexcept {
    return m_stop.load(std::memory_order_relaxed) ||
           (m_linkedStop != nullptr && m_linkedStop->load(std::memory_order_relaxed));
  }
  bool pauseRequested() const noexcept { return m_pause.load(std::memory_order_relaxed); }
  /// True once per requestCheckpoint().
  bool takeCheckpointRequest() noexcept { return m_checkpoint.exchange(false); }

  /// Blocks while paused, without spinning; returns at once when not paused, and as soon as
  /// a stop is requested (the stop flag is also polled every 200 ms, since a signal
  /// handler cannot notify a condition variable).
  void waitWhilePaused();

 private:
  std::atomic<bool> m_stop{false};
  std::atomic<bool> m_pause{false};
  std::atomic<bool> m_checkpoint{false};
  std::atomic<std::int64_t> m_stopAfter{-1};
  const std::atomic<bool>* m_linkedStop = nullptr;
  std::mutex m_mutex;
  std::condition_variable m_wake;
};

}  // namespace attnlab::core
