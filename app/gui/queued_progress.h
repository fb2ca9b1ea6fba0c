#pragma once

// The progress callback a worker thread hands to an analysis (analysis/runs/analysis_control.h
// AnalysisProgress): thinned to one queued call per 100 ms, and every phase's change and end,
// so a fast job does not flood the event loop; each call emits the receiver's
// progress(QString phase, qint64 done, qint64 total) signal on the receiver's thread, and
// none once the receiver is gone. Shared by the app's controllers (analysis, query-key maps).

#include <QMetaObject>
#include <QPointer>
#include <QString>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace attnlab::app {

template <typename Receiver>
std::function<void(const std::string&, std::int64_t, std::int64_t)> queuedProgress(
    QPointer<Receiver> self) {
  struct Throttle {
    std::chrono::steady_clock::time_point last{};
    std::string phase;
  };
  auto state = std::make_shared<Throttle>();  // one worker thread calls it: no lock
  return [self, state](const std::string& phase, std::int64_t done, std::int64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (phase == state->phase && done < total && now - state->last < std::chrono::milliseconds(100))
      return;
    state->last = now;
    state->phase = phase;
    const QString p = QString::fromStdString(phase);
    QMetaObject::invokeMethod(
        self.data(),
        [self, p, done, total] {
          if (self) emit self->progress(p, done, total);
        },
        Qt::QueuedConnection);
  };
}

}  // namespace attnlab::app
