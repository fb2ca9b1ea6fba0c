#pragma once

#include <filesystem>
#include <string>

namespace attnlab::app {

struct InspectOptions {
  std::filesystem::path checkpoint;  ///< a checkpoint file, or a run directory (its latest)
  std::string text;
  std::filesystem::path out;
  std::filesystem::path tokenizer;  ///< optional: overrides the run's tokenizer.model
};

/// `attnlab-cli inspect`: per-layer, per-head attention probabilities, pre-softmax scores
/// and (ASA) adversarial masks of one text under a checkpoint, written as HDF5. Returns the
/// exit status.
int runInspect(const InspectOptions& options);

}  // namespace attnlab::app
