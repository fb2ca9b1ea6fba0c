#pragma once

#include "app/cli/distributed_launch.h"
#include "app/cli/progress_printer.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace attnlab::app {

struct TrainOptions {
  std::filesystem::path config;  ///< a file, or a preset name (core/config/config_presets.h)
  std::filesystem::path runDir;  ///< empty: runs/<run.name>
  std::vector<std::string> overrides;
  bool plainProgress = false;                       ///< force plain lines even on a terminal
  ProgressFormat progress = ProgressFormat::Human;  ///< --progress jsonl: JSON lines
  std::int64_t stopAfterStep = -1;                  ///< >= 0: stop there with a checkpoint (exit 0)
  LaunchOptions launch;                             ///< data-parallel: --nproc-per-node and friends
  std::vector<std::string> argv;  ///< the command line, for the workers a launch starts
};

/// `attnlab-cli train`: loads and validates the config, trains (resuming when the run
/// directory holds a checkpoint), prints progress, and turns Ctrl-C into a clean stop
/// (checkpoint written, log closed; a second Ctrl-C exits at once). Returns the exit
/// status: 0 done, 1 error, 130 stopped by Ctrl-C. With --nproc-per-node N > 1 it starts N
/// workers (distributed_launch.h); started with WORLD_SIZE set (by that launch or by
/// torchrun) it trains as one rank: rank 0 prints the progress and writes the run.
int runTrain(const TrainOptions& options);

}  // namespace attnlab::app
