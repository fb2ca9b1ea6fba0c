#pragma once

// A run's checkpoint as a Hugging Face folder that `transformers` loads with
// AutoModelForMaskedLM and AutoTokenizer (issues 29 and 43): the encoder as the architecture
// that computes it (hfExportArchitectureOf: a BertForMaskedLM, hf_bert_export.h, or for a
// run with rotary positions a ModernBertForMaskedLM, hf_modernbert_export.h) and the run's
// tokenizer (its SentencePiece model converted, hf_tokenizer_export.h, or the pretrained
// tokenizer a model.init_from run kept, copied). Settings the architecture cannot compute
// are refused, every one named by its config key; mechanisms that only change training
// (attention guidance, ASA's adversaries) are exported without their training-only
// parameters, which the result lists.

#include "core/config/run_config.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace attnlab::core {

enum class HfArchitecture { Bert, ModernBert };

/// The architecture a run of `model` is exported as: ModernBERT for rotary positions (the one
/// Hugging Face encoder the engine's RoPE layout matches), BERT otherwise.
HfArchitecture hfExportArchitectureOf(const ModelConfig& model);

/// "BertForMaskedLM" or "ModernBertForMaskedLM".
const char* hfArchitectureName(HfArchitecture architecture);

/// What `architecture` cannot compute of `config`, one line per setting (empty: exportable).
std::vector<std::string> hfExportRefusals(const RunConfig& config, HfArchitecture architecture);

struct HfExportOptions {
  std::filesystem::path checkpoint;  ///< a checkpoint file (<run>/checkpoints/step-N.h5)
  /// Empty: <run>/tokenizer.model, else the tokenizer the checkpoint recorded.
  std::filesystem::path tokenizerModel;
  std::filesystem::path out;  ///< the folder to create
  bool overwrite = false;     ///< replace an existing non-empty `out`
};

struct HfExportResult {
  std::filesystem::path folder;
  std::int64_t step = 0;
  HfArchitecture architecture = HfArchitecture::Bert;
  std::vector<std::string> files;    ///< written, in the folder
  std::vector<std::string> leftOut;  ///< AttnLab's training-only parameters, not exported
};

/// Loads the checkpoint, refuses what its architecture cannot compute (ConfigError listing
/// every setting, naming the config keys), writes the folder into `out`.tmp-<pid> and renames
/// it into place. An existing non-empty `out` is refused (DataError) unless `overwrite`.
HfExportResult exportHuggingFaceModel(const HfExportOptions& options);

}  // namespace attnlab::core
