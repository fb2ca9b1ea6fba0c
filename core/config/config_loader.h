#pragma once

// Reading, overriding, validating and writing a run's configuration. Every function here
// is driven by the schema in config_schema.h and throws attnlab::ConfigError whose where()
// is the key path (or "file:line:column" for a file that is not valid TOML/JSON, or
// "--set <key>" for an override) and whose reason() says what is wrong.

#include "core/config/run_config.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::core {

/// Reads a config file, applies the `key=value` overrides in order and validates the
/// result. Files ending in ".json" are read as JSON with the same schema, anything else as
/// TOML. Keys the file leaves out keep their defaults; unknown keys and sections are errors
/// that suggest the nearest valid name.
RunConfig loadRunConfig(const std::filesystem::path& file,
                        const std::vector<std::string>& overrides = {});

/// loadRunConfig() for TOML text; `sourceName` names it in parse errors.
RunConfig parseRunConfig(std::string_view tomlText, std::string_view sourceName,
                         const std::vector<std::string>& overrides = {});

/// loadRunConfig() for JSON text (the shape toJson() writes).
RunConfig parseRunConfigJson(std::string_view jsonText, std::string_view sourceName,
                             const std::vector<std::string>& overrides = {});

/// Applies one command-line override, "model.layers=6". The value is read as a TOML value
/// (`6`, `0.1`, `true`, `"x"`, `["a", "b"]`); for string keys a value that is not a TOML
/// string (`--set run.name=baseline`) is taken as the plain text. The key's own checks run
/// at once; errors read "--set model.layers: expected an integer, got a string". Cross-key
/// rules are left to validateRunConfig(), since later overrides may fix them.
void applyOverride(RunConfig& config, std::string_view keyEqualsValue);

/// Checks every key's own constraint and then the rules across keys (heads divide
/// hidden_size, sequence_length <= max_positions, ...). Throws the first violation.
void validateRunConfig(const RunConfig& config);

/// The full resolved config as TOML, every key, in schema order. parseRunConfig() of the
/// result reproduces `config` exactly, floats included. This text is what the run log and
/// every checkpoint store.
std::string toToml(const RunConfig& config);

/// The same content as JSON: one object per section, integers as integers, floats as
/// numbers that read back to the same double.
std::string toJson(const RunConfig& config);

/// The reference of every key (key, type, default, meaning) and the cross-key rules, as
/// the Markdown that docs/configuration.md carries between its generated-part markers.
std::string configurationReferenceMarkdown();

/// Marker comments delimiting the generated part of docs/configuration.md.
inline constexpr std::string_view kReferenceBeginMarker =
    "<!-- BEGIN GENERATED REFERENCE: edit core/config/config_schema.cpp, not this table -->";
inline constexpr std::string_view kReferenceEndMarker = "<!-- END GENERATED REFERENCE -->";

}  // namespace attnlab::core
