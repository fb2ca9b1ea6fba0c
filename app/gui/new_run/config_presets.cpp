#include "app/gui/new_run/config_presets.h"

#include "core/config/config_presets.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <algorithm>
#include <filesystem>

namespace attnlab::app {

QStringList configPresetDirectories() {
  // One search order for the app and attnlab-cli (core/config/config_presets.h).
  QStringList dirs;
  for (const std::filesystem::path& dir : core::configPresetDirectories()) {
    dirs << QString::fromStdString(dir.string());
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
