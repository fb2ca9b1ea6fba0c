#include "app/gui/app_settings.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace attnlab::app {

namespace {
const QString kRunsFolder = QStringLiteral("paths/runsFolder");
const QString kRecent = QStringLiteral("runs/recent");
const QString kTheme = QStringLiteral("view/theme");
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
const QString kWaitPolicy = QStringLiteral("engine/ompWaitPolicy");
const QString kLastPreset = QStringLiteral("newRun/lastPreset");
const QString kLastConfigFolder = QStringLiteral("newRun/lastConfigFolder");
const QString kLastModelParent = QStringLiteral("paths/lastModelParent");
const QString kDefaultPreset = QStringLiteral("tiny");
const QString kHealthEntropy = QStringLiteral("health/entropyCollapseNats");
const QString kHealthMassive = QStringLiteral("health/massiveRatio");
const QString kHealthSinkJump = QStringLiteral("health/sinkRateJump");
}  // namespace

AppSettings::AppSettings(QObject* parent) : QObject(parent) {}

QString AppSettings::runsFolder() const {
  return QSettings()
      .value(kRunsFolder, QDir::homePath() + QStringLiteral("/attnlab-runs"))
      .toString();
}

void AppSettings::setRunsFolder(const QString& folder) {
  QSettings().setValue(kRunsFolder, folder);
}

QStringList AppSettings::recentRuns() const {
  QStringList out;
  for (const QString& dir : QSettings().value(kRecent).toStringList())
    if (QFileInfo(dir).isDir()) out << dir;
  return out;
}

void AppSettings::addRecentRun(const QString& directory) {
  QStringList list = QSettings().value(kRecent).toStringList();
  list.removeAll(directory);
  list.prepend(directory);
  while (list.size() > kMaxRecent) list.removeLast();
  QSettings().setValue(kRecent, list);
  emit recentRunsChanged();
}

void AppSettings::clearRecentRuns() {
  QSettings().remove(kRecent);
  emit recentRunsChanged();
}

ThemeMode AppSettings::themeMode() const {
  const QString v = QSettings().value(kTheme, QStringLiteral("system")).toString();
  if (v == QStringLiteral("light")) return ThemeMode::Light;
  if (v == QStringLiteral("dark")) return ThemeMode::Dark;
  return ThemeMode::System;
}

void AppSettings::setThemeMode(ThemeMode mode) {
  const char* names[] = {"system", "light", "dark"};
  QSettings().setValue(kTheme, QString::fromLatin1(names[static_cast<int>(mode)]));
  emit themeModeChanged(mode);
}

QByteArray AppSettings::windowGeometry() const {
  return QSettings().value(kGeometry).toByteArray();
}

QByteArray AppSettings::windowState() const {
  return QSettings().value(kState).toByteArray();
}

void AppSettings::saveWindow(const QByteArray& geometry, const QByteArray& state) {
  QSettings s;
  s.setValue(kGeometry, geometry);
  s.setValue(kState, state);
}

QString AppSettings::ompWaitPolicy() const {
  return QSettings().value(kWaitPolicy, QStringLiteral("passive")).toString();
}

void AppSettings::setOmpWaitPolicy(const QString& policy) {
  QSettings().setValue(kWaitPolicy, policy);
}

QString AppSettings::defaultPreset() {
  return kDefaultPreset;
}

QString AppSettings::lastPreset() const {
  return QSettings().value(kLastPreset, kDefaultPreset).toString();
}

void AppSettings::setLastPreset(const QString& preset) {
  QSettings().setValue(kLastPreset, preset);
}

QString AppSettings::modelDialogFolder() const {
  const QString last = QSettings().value(kLastModelParent).toString();
  return !last.isEmpty() && QFileInfo(last).isDir() ? last : QDir::homePath();
}

void AppSettings::setLastModelFolder(const QString& modelFolder) {
  QDir parent(modelFolder);
  if (parent.cdUp()) QSettings().setValue(kLastModelParent, parent.absolutePath());
}

QString AppSettings::lastConfigFolder(const QString& fallback) const {
  return QSettings().value(kLastConfigFolder, fallback).toString();
}

void AppSettings::setLastConfigFolder(const QString& folder) {
  QSettings().setValue(kLastConfigFolder, folder);
}

HealthAlarmSettings AppSettings::healthAlarms() const {
  const QSettings settings;
  const HealthAlarmSettings defaults;
  HealthAlarmSettings a;
  a.entropyCollapseNats = settings.value(kHealthEntropy, defaults.entropyCollapseNats).toDouble();
  a.massiveRatio = settings.value(kHealthMassive, defaults.massiveRatio).toDouble();
  a.sinkRateJump = settings.value(kHealthSinkJump, defaults.sinkRateJump).toDouble();
  return a;
}

void AppSettings::setHealthAlarms(const HealthAlarmSettings& alarms) {
  if (alarms == healthAlarms()) return;
  QSettings settings;
  settings.setValue(kHealthEntropy, alarms.entropyCollapseNats);
  settings.setValue(kHealthMassive, alarms.massiveRatio);
  settings.setValue(kHealthSinkJump, alarms.sinkRateJump);
  emit healthAlarmsChanged();
}

}  // namespace attnlab::app
