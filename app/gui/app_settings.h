#pragma once

// The app's remembered settings (QSettings): runs folder, recent runs, theme, window layout,
// OpenMP wait policy. A QObject without widgets; keys are documented in docs/app.md.

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

namespace attnlab::app {

enum class ThemeMode { System, Light, Dark };

class AppSettings : public QObject {
  Q_OBJECT
 public:
  explicit AppSettings(QObject* parent = nullptr);

  /// Where new runs go by default ("paths/runsFolder"; ~/attnlab-runs).
  QString runsFolder() const;
  void setRunsFolder(const QString& folder);

  /// Most recent first, at most kMaxRecent, only folders that still exist.
  QStringList recentRuns() const;
  void addRecentRun(const QString& directory);
  void clearRecentRuns();
  static constexpr int kMaxRecent = 10;

  ThemeMode themeMode() const;
  void setThemeMode(ThemeMode mode);

  QByteArray windowGeometry() const;
  QByteArray windowState() const;
  void saveWindow(const QByteArray& geometry, const QByteArray& state);

  /// "passive" (default), "active" or "default" (leave OMP_WAIT_POLICY as the environment
  /// has it); applied when the app starts (main.cpp), since libgomp reads it once.
  QString ompWaitPolicy() const;
  void setOmpWaitPolicy(const QString& policy);

  /// The New run dialog's last preset ("newRun/lastPreset"; defaultPreset() when none).
  QString lastPreset() const;
  /// The demo's preset, "tiny".
  static QString defaultPreset();
  void setLastPreset(const QString& preset);
  /// Where the New run dialog last opened or saved a config file ("newRun/lastConfigFolder";
  /// `fallback` when none).
  QString lastConfigFolder(const QString& fallback) const;
  void setLastConfigFolder(const QString& folder);

 signals:
  void recentRunsChanged();
  void themeModeChanged(attnlab::app::ThemeMode mode);
};

}  // namespace attnlab::app
