#pragma once

// How the live tabs (Curves, Attention, Variants) redraw while a run trains: many updates a
// second arrive, the tab redraws at most once per kIntervalMs, and only while it is shown; a
// hidden tab only collects, and draws what accumulated when it is shown again. One object per
// tab, so the three share the rule instead of three timers.

#include <QObject>
#include <QTimer>

#include <functional>

class QWidget;

namespace attnlab::app {

class RefreshThrottle : public QObject {
 public:
  /// `refresh` runs on the GUI thread: kIntervalMs after a request() while `view` is
  /// visible, and at once when `view` is shown.
  RefreshThrottle(QWidget* view, std::function<void()> refresh);

  /// Something changed: redraw soon if the view is shown (several requests, one redraw).
  void request();
  /// The view is redrawing now: a pending redraw is not needed.
  void cancel() { m_timer.stop(); }

  static constexpr int kIntervalMs = 40;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* m_view;
  std::function<void()> m_refresh;
  QTimer m_timer;
};

}  // namespace attnlab::app
