#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace attnlab::app {

struct ExportModelCommandOptions {
  std::filesystem::path run;  ///< run directory or checkpoint file
  std::optional<std::int64_t> step;
  std::filesystem::path out;  ///< the folder to create
  bool force = false;         ///< replace an existing non-empty folder
};

/// `attnlab-cli export-model RUN --out DIR [--step N] [--force]`: the run's checkpoint as a
/// Hugging Face folder (BertForMaskedLM, or ModernBertForMaskedLM for a RoPE run, and a fast
/// tokenizer) that transformers' AutoModelForMaskedLM and AutoTokenizer load
/// (core/pretrained/hf_model_export.h). Prints the
/// files written and the training-only parameters left out. Returns the exit status.
int runExportModel(const ExportModelCommandOptions& options);

}  // namespace attnlab::app
