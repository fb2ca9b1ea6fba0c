#pragma once

// The app's remembered settings (QSettings): runs folder, recent runs, theme, window layout,
// OpenMP wait policy. A QObject without widgets; keys are documented in docs/app.md.

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

namespace attnlab::app {

enum class ThemeMode { System, Light, Dark };

/// The Health tab's alarms (docs/app.md, "Health tab"): when each one fires.
struct HealthAlarmSettings {
  /// Entropy collapse: a head's minimum row entropy under this (nats) while its S_max rises.
  double entropyCollapseNats = 0.1;
  /// Massive activation: a layer's top |h| / median |h| over this.
  double massiveRatio = 100.0;
  /// Sink-rate jump: a token class's sink rate up by more than this between logged steps.
  double sinkRateJump = 0.25;
  bool operator==(const HealthAlarmSettings&) const = default;
};

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
  /// Where File > Open model starts: the folder that held the model folder opened last
  /// ("paths/lastModelParent"), or the home folder when none was or it no longer exists.
  QString modelDialogFolder() const;
  /// Remembers the folder that holds `modelFolder`, after it opened.
  void setLastModelFolder(const QString& modelFolder);
  /// Where the New run dialog last opened or saved a config file ("newRun/lastConfigFolder";
  /// `fallback` when none).
  QString lastConfigFolder(const QString& fallback) const;
  void setLastConfigFolder(const QString& folder);

  /// The Health tab's alarm thresholds ("health/entropyCollapseNats", "health/massiveRatio",
  /// "health/sinkRateJump"; the defaults of HealthAlarmSettings when unset).
  HealthAlarmSettings healthAlarms() const;
  void setHealthAlarms(const HealthAlarmSettings& alarms);

 signals:
  void recentRunsChanged();
  void themeModeChanged(attnlab::app::ThemeMode mode);
  void healthAlarmsChanged();
};

}  // namespace attnlab::app
