#pragma once

// What the GUI benchmarks and the soak share: a probe of how late the GUI thread's event
// loop runs a 10 ms timer (a stall is that lateness), nearest-rank percentiles, and an
// event-loop wait with a timeout.

#include <unistd.h>

#include <QEventLoop>
#include <QObject>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <vector>

namespace attnlab::bench {

using Clock = std::chrono::steady_clock;

inline constexpr int kTickMs = 10;  // the GUI-thread probe timer

inline double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// Nearest-rank percentile (p in [0, 100]) of `values`; 0 for none.
inline double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * double(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

inline double maxOf(const std::vector<double>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

/// Runs the event loop until `done()` holds (checked every `pollMs` and after each event
/// batch the timer sees) or `timeoutMs` passes. True when `done()` held.
inline bool waitUntil(const std::function<bool()>& done, int timeoutMs, int pollMs = 20) {
  if (done()) return true;
  QEventLoop loop;
  QTimer poll;
  poll.setTimerType(Qt::PreciseTimer);
  QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
    if (done()) loop.quit();
  });
  poll.start(pollMs);
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  loop.exec();
  return done();
}

/// libgomp reads OMP_WAIT_POLICY when it is loaded: like the app (app/gui/main.cpp), run
/// passive unless the environment says otherwise, by re-executing once with it set; and
/// offscreen unless a Qt platform is named. Call first thing in main().
inline void runPassiveAndOffscreen(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("ATTNLAB_OMP_APPLIED") == nullptr) {
    setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    setenv("ATTNLAB_OMP_APPLIED", "1", 1);
    execv("/proc/self/exe", argv);
  }
  if (std::getenv("QT_QPA_PLATFORM") == nullptr) setenv("QT_QPA_PLATFORM", "offscreen", 1);
}

/// Records how late a 10 ms timer on the GUI thread fires: lateness = actual interval -
/// 10 ms (clamped at 0), one value per tick.
class StallProbe : public QObject {
 public:
  StallProbe() {
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, [this] {
      const auto now = Clock::now();
      const double interval = std::chrono::duration<double, std::milli>(now - m_last).count();
      lateMs.push_back(std::max(0.0, interval - kTickMs));
      m_last = now;
    });
  }
  void start() {
    m_last = Clock::now();
    m_timer.start();
  }
  void stop() { m_timer.stop(); }
  std::vector<double> lateMs;

 private:
  QTimer m_timer;
  Clock::time_point m_last;
};

}  // namespace attnlab::bench
