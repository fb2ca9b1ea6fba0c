#include "app/gui/new_run/config_presets.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <algorithm>

namespace attnlab::app {

QStringList configPresetDirectories() {
  QStringList candidates;
  if (const QString env = qEnvironmentVariable("ATTNLAB_CONFIG_DIR"); !env.isEmpty()) {
    candidates << env;
  }
  // The installed layout: <prefix>/bin/attnlab and <prefix>/share/attnlab/configs
  // (CMakeLists.txt installs resources/configs there).
  if (QCoreApplication::instance()) {
    candidates << QCoreApplication::applicationDirPath() +
                      QStringLiteral("/../share/attnlab/configs");
  }
#ifdef ATTNLAB_SOURCE_CONFIG_DIR
  candidates << QStringLiteral(ATTNLAB_SOURCE_CONFIG_DIR);
#endif
  QStringList dirs;
  for (const QString& candidate : candidates) {
    const QFileInfo info(candidate);
    const QString path = QDir::cleanPath(info.absoluteFilePath());
    if (info.isDir() && !dirs.contains(path)) dirs << path;
  }
  return dirs;
}

QList<ConfigPreset> configPresets() {
  QList<ConfigPreset> presets;
  QSet<QString> seen;
  for (const QString& dir : configPresetDirectories()) {
    const QFileInfoList files = QDir(dir).entryInfoList({QStringLiteral("*.toml")},
                                                        QDir::Files | QDir::Readable, QDir::Name);
    for (const QFileInfo& file : files) {
      const QString name = file.completeBaseName();
      if (seen.contains(name)) continue;  // an earlier folder overrides this one
      seen.insert(name);
      presets.append({name, file.absoluteFilePath(), presetDescription(file.absoluteFilePath())});
    }
  }
  std::sort(presets.begin(), presets.end(),
            [](const ConfigPreset& a, const ConfigPreset& b) { return a.name < b.name; });
  return presets;
}

std::optional<ConfigPreset> findConfigPreset(const QString& name) {
  for (const ConfigPreset& preset : configPresets()) {
    if (preset.name == name) return preset;
  }
  return std::nullopt;
}

QString presetDescription(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
  while (!file.atEnd()) {
    const QString line = QString::fromUtf8(file.readLine()).trimmed();
    if (line.isEmpty()) continue;
    // Only a comment that opens the file describes it; one further down belongs to a key.
    if (!line.startsWith(QLatin1Char('#'))) return {};
    return line.mid(1).trimmed();
  }
  return {};
}

}  // namespace attnlab::app
