#pragma once

// A run's checkpoint as a Hugging Face folder that `transformers` loads with
// AutoModelForMaskedLM and AutoTokenizer (issue 29, the inverse of hf_bert_import.h): the
// encoder as a BertForMaskedLM (config.json, model.safetensors under the names of
// hf_bert_names.h, q/k/v split out of the fused projection, one token type whose embedding is
// zero so the positions stay exact, the decoder tied to the word embeddings) and the run's
// SentencePiece model as a fast tokenizer (tokenizer.json as `tokenizers` reads it,
// tokenizer_config.json, special_tokens_map.json, and tokenizer.model copied). Settings a
// standard BERT cannot compute are refused, every one of them named by its config key;
// mechanisms that only change training (attention guidance, ASA's adversaries) are exported
// without their training-only parameters, which the result lists.

#include "core/config/run_config.h"
#include "core/pretrained/sentencepiece_model_file.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace attnlab::core {

/// What a standard BertForMaskedLM cannot compute of `config`: one line per setting,
/// "<config key> = <value>: <why>". Empty: exportable.
std::vector<std::string> hfBertRefusals(const RunConfig& config);

/// The BertForMaskedLM tensors of AttnLab's parameters (`parameters` keyed by AttnLab's
/// names, without the checkpoint's "model/"), float32 contiguous on the CPU, by BERT name;
/// `leftOut` gets the training-only parameters (ASA's adversaries). Throws DataError naming
/// a parameter that is missing or has no BERT counterpart.
std::map<std::string, at::Tensor> hfBertTensorsOf(
    const std::map<std::string, at::Tensor>& parameters, const ModelConfig& model,
    std::vector<std::string>& leftOut);

/// Writes config.json and model.safetensors for `model` with these tensors into `folder`.
void writeHfBertModel(const std::filesystem::path& folder,
                      const std::map<std::string, at::Tensor>& bertTensors,
                      const ModelConfig& model, int vocabSize, int padId);

/// Writes tokenizer.json, tokenizer_config.json, special_tokens_map.json and a copy of the
/// .model into `folder`. Throws DataError naming tokenizer.algorithm for a model the export
/// does not convert (bpe, word, char), and naming the file when AttnLab's special pieces are
/// missing from it.
void writeHfTokenizer(const std::filesystem::path& folder, const std::filesystem::path& spModel,
                      const SentencePieceModelFile& model, int maxLength);

/// tokenizer.json's text for `model` (Unigram, SentencePiece's normalizer, Metaspace,
/// "<s> $A </s>"); the same refusals as writeHfTokenizer. `where` names the .model file.
std::string hfTokenizerJson(const SentencePieceModelFile& model, const std::string& where);

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
  std::vector<std::string> files;    ///< written, in the folder
  std::vector<std::string> leftOut;  ///< AttnLab's training-only parameters, not exported
};

/// Loads the checkpoint, refuses what BERT cannot compute (ConfigError listing every
/// setting, naming the config keys), writes the folder into `out`.tmp-<pid> and renames it
/// into place. An existing non-empty `out` is refused (DataError) unless `overwrite`.
HfExportResult exportHuggingFaceModel(const HfExportOptions& options);

}  // namespace attnlab::core
