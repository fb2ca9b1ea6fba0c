#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace attnlab::app {

struct InspectOptions {
  std::filesystem::path checkpoint;  ///< a checkpoint file, or a run directory (its latest)
  std::string text;
  std::filesystem::path out;
  std::filesystem::path tokenizer;  ///< optional: overrides the run's tokenizer.model
  /// What to write besides the tokens: any of weights (probabilities, scores, ASA masks),
  /// rollout, norms, lens (docs/analysis.md, "Beyond the weights").
  std::vector<std::string> views = {"weights"};
  int top = 5;                      ///< the lens's best tokens per cell
  std::vector<std::int64_t> masks;  ///< positions (0 = <s>) replaced by <mask>
  /// --hooks: list the model's hook points with their shapes (no text, no output file).
  bool listHooks = false;
  /// --capture: hook-point names or patterns to write instead of the views
  /// (docs/hook-points.md).
  std::vector<std::string> capture;
};

/// `attnlab-cli inspect`: one text under a checkpoint, written as HDF5: per-layer, per-head
/// attention probabilities, pre-softmax scores and (ASA) adversarial masks, the rollout, the
/// norm-based attention and the logit lens, as `views` asks. Returns the exit status.
int runInspect(const InspectOptions& options);

}  // namespace attnlab::app
