#pragma once

// `attnlab-cli export`: the catalog's figures of runs as PNG, SVG or PDF (figures/,
// docs/figures.md). Declared in every build; only a GUI build (ATTNLAB_GUI=ON) can render,
// a headless one says so and fails.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace attnlab::app {

struct ExportCommandOptions {
  std::vector<std::filesystem::path> runs;
  bool list = false;
  std::string figure;
  std::string format;  ///< png, svg or pdf; default: from --out's extension
  std::filesystem::path out;
  std::filesystem::path reportDir;   ///< --report: every figure that applies, and index.md
  std::optional<std::int64_t> step;  ///< report figures: the checkpoint step
  std::optional<int> width;
  std::optional<int> height;
  std::optional<double> dpi;
};

/// Adds the `export` subcommand and its options to `cli`.
CLI::App* addExportCommand(CLI::App& cli, ExportCommandOptions& options);

/// Runs it; returns the exit status.
int runExport(const ExportCommandOptions& options);

}  // namespace attnlab::app
