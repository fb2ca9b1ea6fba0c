#include "core/train/training_control.h"

#include <chrono>

namespace attnlab::core {

void TrainingControl::requestStop() noexcept {
  m_stop.store(true);
}

void TrainingControl::setPaused(bool paused) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_pause.store(paused);
  }
  m_wake.notify_all();
}

void TrainingControl::requestCheckpoint() noexcept {
  m_checkpoint.store(true);
}

void TrainingControl::waitWhilePaused() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (m_pause.load() && !stopRequested()) {
    m_wake.wait_for(lock, std::chrono::milliseconds(200));
  }
}

}  // namespace attnlab::core
