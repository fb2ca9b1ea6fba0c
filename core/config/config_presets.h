#pragma once

// The preset run configurations (resources/configs/*.toml, installed under
// <prefix>/share/attnlab/configs) and how a preset name such as "tiny" becomes a file.
// Plain C++ so that attnlab-cli and the app find the same presets in the same order.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::core {

/// The folders searched for presets, most specific first, whether they exist or not:
/// $ATTNLAB_CONFIG_DIR when set; the installed copy <exe dir>/../share/attnlab/configs; and
/// the source tree's resources/configs, only while the executable runs from the build
/// folder it was built in (an installed program never reads the source tree).
std::vector<std::filesystem::path> configPresetSearchPath();

/// The folders of configPresetSearchPath() that exist, normalised, without duplicates.
std::vector<std::filesystem::path> configPresetDirectories();

/// The names of every *.toml preset in those folders ("tiny", "bench", ...), sorted, each
/// once.
std::vector<std::string> configPresetNames();

/// The file of the preset `name` ("tiny" or "tiny.toml"): the first folder that has it.
std::optional<std::filesystem::path> findConfigPreset(const std::string& name);

/// What `--config` names: an existing file as it is; otherwise a bare preset name (no
/// folder part) looked up with findConfigPreset. Throws ConfigError naming the argument,
/// the presets there are and every folder searched when it is neither.
std::filesystem::path resolveConfigArgument(const std::filesystem::path& argument);

}  // namespace attnlab::core
