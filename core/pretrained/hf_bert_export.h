#pragma once

// A run's encoder as a Hugging Face BertForMaskedLM (issue 29, the inverse of
// hf_bert_import.h): config.json and model.safetensors under the names of hf_bert_names.h,
// q/k/v split out of the fused projection, one token type whose embedding is zero so the
// positions stay exact, the decoder tied to the word embeddings. Settings a standard BERT
// cannot compute are refused, every one of them named by its config key. hf_model_export.h
// writes the whole folder (this, or ModernBERT's, and the tokenizer).

#include "core/config/run_config.h"

#include <ATen/core/Tensor.h>

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

}  // namespace attnlab::core
