#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::analysis {

/// The checkpoint an analysis reads, and the run it belongs to.
struct SelectedCheckpoint {
  std::filesystem::path runDir;      ///< holds run.h5, tokenizer.model, checkpoints/
  std::filesystem::path checkpoint;  ///< the file, or a pretrained model folder
  std::int64_t step = 0;
  std::vector<std::int64_t> availableSteps;  ///< every readable checkpoint of the run
};

/// Which run and checkpoint a report describes, as every report names them.
struct AnalysedCheckpoint {
  std::string runDir;
  std::string runName;     ///< run.name of the checkpoint's configuration
  std::string checkpoint;  ///< the file
  std::int64_t step = 0;
  /// How the analyses read the model's attention maps: "probabilities", or "|s| / sum |s| per
  /// row" for maps that are not (core/model/attention_maps.h).
  std::string attentionMaps = "probabilities";
};

/// `run` is a run directory or one of its checkpoint files, or a Hugging Face model folder
/// (step 0; runDir = its work folder, core::pretrainedWorkDir, created). Without `step` the latest
/// checkpoint is taken. Throws CheckpointError when there is none, or when `step` has no
/// checkpoint (naming the steps that have one).
SelectedCheckpoint selectCheckpoint(const std::filesystem::path& run,
                                    std::optional<std::int64_t> step = std::nullopt);

}  // namespace attnlab::analysis
