#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace attnlab::app {

struct HealthCommandOptions {
  std::filesystem::path run;  ///< run directory, checkpoint file or Hugging Face model folder
  std::optional<std::int64_t> step;
  std::filesystem::path text;  ///< evaluate on this text file instead of the validation split
  std::filesystem::path out;   ///< default <run>/analysis/health-step-<S>
  std::optional<double> sinkEpsilon;   ///< default: the run's log.health_sink_epsilon (0.3)
  std::optional<double> collapseNats;  ///< default: the run's log.health_collapse_nats (0.5)
  std::int64_t examples = 0;           ///< 0: the whole evaluation set
  int batchSize = 16;
  bool plain = false;
};

/// `attnlab-cli health RUN|MODEL_DIR`: the attention-health report of a checkpoint over an
/// evaluation set (analysis::runHealthJob), as health.json, health.csv, health_layers.csv and
/// health.md. Returns the exit status.
int runHealth(const HealthCommandOptions& options);

}  // namespace attnlab::app
