#pragma once

// A run of ModernBERT's layout (docs/modern-encoders.md) as a Hugging Face
// ModernBertForMaskedLM (issue 43, the inverse of hf_modernbert_import.h): config.json with
// the layer pattern, window and RoPE bases written both as transformers 5 reads them
// (layer_types, rope_parameters) and as 4.48+ did (global_attn_every_n_layers,
// global_rope_theta, local_rope_theta), and model.safetensors under the import's names
// (modernBertTensorNames). Settings ModernBERT cannot compute are refused by config key.

#include "core/config/run_config.h"
#include "core/tokenizer/tokenizer.h"

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace attnlab::core {

/// What ModernBertForMaskedLM cannot compute of `config`: one line per setting,
/// "<config key> = <value>: <why>". Empty: exportable.
std::vector<std::string> hfModernBertRefusals(const RunConfig& config);

/// The ModernBertForMaskedLM tensors of AttnLab's parameters (keyed by AttnLab's names),
/// float32 contiguous on the CPU; `leftOut` gets the training-only parameters. Throws
/// DataError naming a parameter that is missing or has no counterpart.
std::map<std::string, at::Tensor> hfModernBertTensorsOf(
    const std::map<std::string, at::Tensor>& parameters, const ModelConfig& model,
    std::vector<std::string>& leftOut);

/// Writes config.json and model.safetensors into `folder`; the special ids become
/// pad/bos/eos/cls/sep_token_id.
void writeHfModernBertModel(const std::filesystem::path& folder,
                            const std::map<std::string, at::Tensor>& tensors,
                            const ModelConfig& model, int vocabSize,
                            const SpecialTokenIds& special);

}  // namespace attnlab::core
