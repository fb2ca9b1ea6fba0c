#pragma once

// A Hugging Face ModernBERT folder (ModernBertForMaskedLM or ModernBertModel as
// `save_pretrained` writes them; Warner et al. 2024) as AttnLab's encoder with ModernBERT's
// layout (docs/modern-encoders.md): config.json's fields honoured or refused by name, the
// weights mapped by name (the fused Wqkv and the GeGLU Wi have AttnLab's layout already).

#include "core/pretrained/hf_bert_import.h"
#include "core/pretrained/hf_checkpoint_files.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::core {

/// config.json of model_type "modernbert" read into `PretrainedModel` (no network): Pre-LN
/// without layer 0's attention norm, RoPE with the global and local bases (rope_parameters,
/// or the older global_rope_theta / local_rope_theta), local_attention as the window and
/// layer_types (or global_attn_every_n_layers) as the global layers, GeGLU, the biases.
/// DataError naming the field for what the engine cannot compute: another activation, a
/// rope_type other than default, layers that are not global every N, biases on in some parts
/// and off in others.
PretrainedModel describeModernBert(const nlohmann::json& config,
                                   const std::filesystem::path& folder);

/// AttnLab's parameter -> the checkpoint's tensor, the one table both directions read (the
/// import here, hf_modernbert_export.h): the encoder under `prefix` ("model." in a
/// ModernBertForMaskedLM, "" in a ModernBertModel saved alone), then the MLM head's dense
/// layer and norm when `withHead`. The decoder's weight is tied to the token embeddings and
/// its bias ("decoder.bias", AttnLab's mlm_bias) is handled by each direction.
std::vector<std::pair<std::string, std::string>> modernBertTensorNames(const ModelConfig& m,
                                                                       const std::string& prefix,
                                                                       bool withHead);

/// True when `weights` hold the MLM head (a ModernBertForMaskedLM, not a ModernBertModel).
bool hasModernBertHead(const WeightFiles& weights);

/// The checkpoint's tensors into m.network (built from m.model, with the head when
/// m.hasMlmHead); lists the tensors AttnLab does not use in m.unused.
void loadModernBertWeights(PretrainedModel& m, const WeightFiles& weights);

}  // namespace attnlab::core
