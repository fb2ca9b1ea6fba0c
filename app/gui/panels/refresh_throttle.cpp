#include "app/gui/panels/refresh_throttle.h"

#include <QEvent>
#include <QWidget>

namespace attnlab::app {

RefreshThrottle::RefreshThrottle(QWidget* view, std::function<void()> refresh)
    : QObject(view), m_view(view), m_refresh(std::move(refresh)) {
  m_timer.setSingleShot(true);
  m_timer.setInterval(kIntervalMs);
  connect(&m_timer, &QTimer::timeout, this, [this] { m_refresh(); });
  view->installEventFilter(this);
}

void RefreshThrottle::request() {
  if (m_view->isVisible() && !m_timer.isActive()) m_timer.start();
}

bool RefreshThrottle::eventFilter(QObject* watched, QEvent* event) {
  // Shown again: catch up with what arrived while hidden.
  if (watched == m_view && event->type() == QEvent::Show) m_refresh();
  return QObject::eventFilter(watched, event);
}

}  // namespace attnlab::app
