#pragma once

// Where the app finds the preset run configurations (resources/configs/*.toml) and what
// they are. Presets are plain TOML files, so the list is read from disk each time: a file
// dropped into $ATTNLAB_CONFIG_DIR shows up the next time the dialog opens.

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace attnlab::app {

/// One preset file.
struct ConfigPreset {
  QString name;         ///< the file stem, "tiny"
  QString path;         ///< absolute path of the .toml file
  QString description;  ///< the file's first comment line, without "# "; may be empty
};

/// The folders searched, most specific first: $ATTNLAB_CONFIG_DIR when set, the installed
/// copy `<executable dir>/../share/attnlab/configs`, and the source tree's resources/configs
/// only while the program runs from its build folder. Only existing folders. The order is
/// core::configPresetDirectories(), the one attnlab-cli uses for `--config NAME`.
QStringList configPresetDirectories();

/// Every *.toml preset of those folders, sorted by name. A name found in several folders
/// is taken from the first (so $ATTNLAB_CONFIG_DIR can replace a shipped preset).
QList<ConfigPreset> configPresets();

/// The preset called `name`, if there is one.
std::optional<ConfigPreset> findConfigPreset(const QString& name);

/// The first comment line of a TOML file ("# The demo: ..." -> "The demo: ..."), or an
/// empty string when the file cannot be read or does not start with a comment.
QString presetDescription(const QString& path);

}  // namespace attnlab::app
