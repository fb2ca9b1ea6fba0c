#pragma once

// The app's light or dark look, owned in one place: the mode the person chose (View > Theme,
// stored in AppSettings), the application palette it gives, and the plots' theme the tabs
// draw with. A QObject without widgets of its own; the window applies themeChanged to its
// views and the runs' colours.

#include "app/gui/app_settings.h"
#include "widgets/plots/theme.h"

#include <QObject>

namespace attnlab::app {

class ThemeController : public QObject {
  Q_OBJECT
 public:
  explicit ThemeController(AppSettings* settings, QObject* parent = nullptr);

  /// Applies the settings' mode now: the palette, then themeChanged.
  void apply();
  /// Stores `mode` in the settings and applies it.
  void setMode(ThemeMode mode);
  /// The platform changed its colours: re-applied when the mode follows the system.
  void systemThemeChanged();
  /// Calls systemThemeChanged() whenever `window` is told the platform's theme changed.
  void followSystemThemeOf(QObject* window);

  const widgets::Theme& theme() const { return m_theme; }
  bool isDark() const { return m_dark; }

 signals:
  void themeChanged(const attnlab::widgets::Theme& theme);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  AppSettings* m_settings;
  widgets::Theme m_theme = widgets::Theme::light();
  bool m_dark = false;
  bool m_applying = false;  // setPalette sends a theme change of its own
};

}  // namespace attnlab::app
