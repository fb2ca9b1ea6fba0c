#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::app {

struct AnalyzeCommandOptions {
  std::filesystem::path run;
  std::optional<std::int64_t> step;
  std::int64_t examples = 0;   ///< 0: the whole evaluation set
  std::filesystem::path text;  ///< evaluate on this text file instead of the validation split
  std::filesystem::path out;   ///< default <run>/analysis/step-<S>
  std::string jsdUnit = "bits";
  bool clarkSmoothing = false;
  std::int64_t pairwise = 64;
  bool overCheckpoints = false;
  bool noSnapshots = false;
  bool noRollout = false;   ///< skip the rollout summary
  bool noNorms = false;     ///< skip the weight-norm summary
  bool noLens = false;      ///< skip the logit lens summary (its second forward pass)
  bool heads = false;       ///< head importance, ablation and pruning (Michel et al. 2019)
  bool noAblation = false;  ///< --heads without the single-head ablation (L x H passes)
  /// Also the attention-health report of the same checkpoint and evaluation set
  /// (`attnlab-cli health`, into <run>/analysis/health-step-<S>).
  bool health = false;
  std::vector<std::uint64_t> pruningSeeds = {1, 2, 3};  ///< the random pruning orders' seeds
  int batchSize = 16;
  bool plain = false;
};

/// `attnlab-cli analyze`: attention statistics of a run's checkpoint over an evaluation set,
/// written as JSON, CSV and Markdown. Returns the exit status.
int runAnalyze(const AnalyzeCommandOptions& options);

}  // namespace attnlab::app
