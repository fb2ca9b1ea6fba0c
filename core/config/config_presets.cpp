#include "core/config/config_presets.h"

#include "core/errors/error.h"
#include "core/runtime/executable_path.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <system_error>

// Set by core/config/CMakeLists.txt for this file only: the build's bin/ folder and the
// source tree's presets, and where the presets lie under an install prefix.
#ifndef ATTNLAB_DATA_SUBDIR
#define ATTNLAB_DATA_SUBDIR "share/attnlab"
#endif

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

// True when `a` and `b` are the same existing folder.
bool sameFolder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return !a.empty() && !b.empty() && fs::equivalent(a, b, ec) && !ec;
}

std::string presetName(const fs::path& file) {
  return file.stem().string();
}

}  // namespace

std::vector<fs::path> configPresetSearchPath() {
  std::vector<fs::path> paths;
  if (const char* env = std::getenv("ATTNLAB_CONFIG_DIR"); env != nullptr && *env != '\0') {
    paths.emplace_back(env);
  }
  const fs::path exeDir = executableDirectory();
  if (!exeDir.empty()) {
    paths.push_back(exeDir.parent_path() / ATTNLAB_DATA_SUBDIR / "configs");
  }
#if defined(ATTNLAB_BUILD_BIN_DIR) && defined(ATTNLAB_SOURCE_CONFIG_DIR)
  // A program run from its build folder uses the presets it was built with; the same
  // binary installed elsewhere does not look at the source tree at all.
  if (sameFolder(exeDir, ATTNLAB_BUILD_BIN_DIR)) paths.emplace_back(ATTNLAB_SOURCE_CONFIG_DIR);
#endif
  return paths;
}

std::vector<fs::path> configPresetDirectories() {
  std::vector<fs::path> dirs;
  for (const fs::path& candidate : configPresetSearchPath()) {
    std::error_code ec;
    if (!fs::is_directory(candidate, ec)) continue;
    const fs::path normal = fs::weakly_canonical(fs::absolute(candidate, ec), ec);
    const fs::path dir = ec ? candidate.lexically_normal() : normal;
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  }
  return dirs;
}

std::vector<std::string> configPresetNames() {
  std::set<std::string> names;
  for (const fs::path& dir : configPresetDirectories()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".toml" && entry.is_regular_file(ec)) {
        names.insert(presetName(entry.path()));
      }
    }
  }
  return {names.begin(), names.end()};
}

std::optional<fs::path> findConfigPreset(const std::string& name) {
  if (name.empty()) return std::nullopt;
  fs::path file(name);
  if (file.has_parent_path() || file.filename() == "." || file.filename() == "..") {
    return std::nullopt;
  }
  if (file.extension() != ".toml") file += ".toml";
  for (const fs::path& dir : configPresetDirectories()) {
    std::error_code ec;
    if (fs::is_regular_file(dir / file, ec)) return dir / file;
  }
  return std::nullopt;
}

fs::path resolveConfigArgument(const fs::path& argument) {
  std::error_code ec;
  if (fs::is_regular_file(argument, ec)) return argument;
  if (fs::exists(argument, ec)) {
    throw ConfigError(argument.string(), "is not a file (a TOML or JSON run configuration)");
  }
  if (!argument.has_parent_path()) {
    if (auto preset = findConfigPreset(argument.string())) return *preset;
  }
  std::string reason = "no such file, and no preset of that name";
  const std::vector<std::string> names = configPresetNames();
  if (!names.empty()) {
    reason += "; presets:";
    for (const std::string& name : names) reason += " " + name;
  }
  reason += "; folders searched for presets:";
  for (const fs::path& dir : configPresetSearchPath()) {
    reason += "\n  " + dir.string() + (fs::is_directory(dir, ec) ? "" : " (not found)");
  }
  throw ConfigError(argument.string(), reason);
}

}  // namespace attnlab::core
