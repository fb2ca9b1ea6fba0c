#include "app/gui/theme_controller.h"

#include <QApplication>
#include <QEvent>
#include <QGuiApplication>
#include <QPalette>
#include <QStyle>

namespace attnlab::app {

namespace {

// The palette the platform gave the app, captured before the app changes it.
const QPalette& systemPalette() {
  static const QPalette palette = QGuiApplication::palette();
  return palette;
}

bool systemPrefersDark() {
  // Qt 6.4 has no colour-scheme query: the system palette's window colour tells.
  return systemPalette().color(QPalette::Window).lightness() < 128;
}

QPalette darkPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
  p.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
  p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
  p.setColor(QPalette::AlternateBase, QColor(0x2b, 0x2b, 0x2b));
  p.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
  p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
  p.setColor(QPalette::ButtonText, QColor(0xe0, 0xe0, 0xe0));
  p.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xc6));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::ToolTipBase, QColor(0x35, 0x35, 0x35));
  p.setColor(QPalette::ToolTipText, QColor(0xe0, 0xe0, 0xe0));
  p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
  p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
  return p;
}

}  // namespace

ThemeController::ThemeController(AppSettings* settings, QObject* parent)
    : QObject(parent), m_settings(settings) {
  (void)systemPalette();  // captured before the first change
  // Whoever changes the mode (View > Theme, another window), the look follows.
  connect(settings, &AppSettings::themeModeChanged, this, &ThemeController::apply);
}

void ThemeController::apply() {
  if (m_applying) return;
  m_applying = true;
  const ThemeMode mode = m_settings->themeMode();
  m_dark = mode == ThemeMode::Dark || (mode == ThemeMode::System && systemPrefersDark());
  if (mode == ThemeMode::Dark) {
    QApplication::setPalette(darkPalette());
  } else if (mode == ThemeMode::Light) {
    QApplication::setPalette(QApplication::style()->standardPalette());
  } else {
    QApplication::setPalette(systemPalette());
  }
  m_theme = m_dark ? widgets::Theme::dark() : widgets::Theme::light();
  emit themeChanged(m_theme);
  m_applying = false;
}

void ThemeController::setMode(ThemeMode mode) {
  m_settings->setThemeMode(mode);  // themeModeChanged applies it
}

void ThemeController::systemThemeChanged() {
  if (m_settings->themeMode() == ThemeMode::System) apply();
}

void ThemeController::followSystemThemeOf(QObject* window) {
  window->installEventFilter(this);
}

bool ThemeController::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::ThemeChange) systemThemeChanged();
  return QObject::eventFilter(watched, event);
}

}  // namespace attnlab::app
