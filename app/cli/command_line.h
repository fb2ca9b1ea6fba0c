#pragma once

// attnlab-cli's command line, as qBittorrent's cmdoptions does it: every subcommand's
// options are registered into one struct, CLI11 parses the arguments into it, and only then
// is the chosen subcommand run with its part of the struct. main.cpp strings the steps.

#include "app/cli/analyze_command.h"
#include "app/cli/compare_command.h"
#include "app/cli/export_command.h"
#include "app/cli/export_model_command.h"
#include "app/cli/health_command.h"
#include "app/cli/inspect_command.h"
#include "app/cli/probe_command.h"
#include "app/cli/qk_map_command.h"
#include "app/cli/smoke_command.h"
#include "app/cli/train_command.h"

namespace CLI {
class App;
}

namespace attnlab::app {

/// Every subcommand's options, filled by the parse; only the chosen subcommand's part is used.
struct CommandLineOptions {
  SmokeOptions smoke;
  TrainOptions train;
  InspectOptions inspect;
  AnalyzeCommandOptions analyze;
  ProbeCorefCommandOptions probeCoref;
  CompareCommandOptions compare;
  QkMapCommandOptions qkMap;
  HealthCommandOptions health;
  ExportCommandOptions exportFigures;
  ExportModelCommandOptions exportModel;
};

/// The registered subcommands: after the parse, the one that `parsed()` is the one to run.
struct Subcommands {
  CLI::App* smoke = nullptr;
  CLI::App* train = nullptr;
  CLI::App* inspect = nullptr;
  CLI::App* analyze = nullptr;
  CLI::App* probeCoref = nullptr;  ///< `probe coref` (`probe` itself runs nothing)
  CLI::App* compare = nullptr;
  CLI::App* qkMap = nullptr;
  CLI::App* health = nullptr;
  CLI::App* exportFigures = nullptr;
  CLI::App* exportModel = nullptr;
};

/// Each adds one subcommand, its options bound to `options`, and returns it.
CLI::App* addSmokeCommand(CLI::App& cli, SmokeOptions& options);
CLI::App* addTrainCommand(CLI::App& cli, TrainOptions& options);
CLI::App* addInspectCommand(CLI::App& cli, InspectOptions& options);
CLI::App* addAnalyzeCommand(CLI::App& cli, AnalyzeCommandOptions& options);
/// Adds `probe` and its task `coref`; returns `coref`, the one that runs.
CLI::App* addProbeCommand(CLI::App& cli, ProbeCorefCommandOptions& options);
CLI::App* addCompareCommand(CLI::App& cli, CompareCommandOptions& options);
CLI::App* addQkMapCommand(CLI::App& cli, QkMapCommandOptions& options);
CLI::App* addHealthCommand(CLI::App& cli, HealthCommandOptions& options);
CLI::App* addExportModelCommand(CLI::App& cli, ExportModelCommandOptions& options);

/// Adds every subcommand (in the order --help lists them), bound to `options`.
Subcommands addCommands(CLI::App& cli, CommandLineOptions& options);

/// Runs the subcommand the parse chose with its options; returns the exit status.
int runChosenCommand(const Subcommands& commands, const CommandLineOptions& options);

}  // namespace attnlab::app
