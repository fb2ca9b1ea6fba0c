#pragma once

// The one table of how AttnLab's encoder parameters are named in a Hugging Face BERT or
// RoBERTa checkpoint (issue 29), read by the import (hf_bert_import.cpp) and written by the
// export (hf_bert_export.cpp). Plain strings: no LibTorch. What the table leaves out, each
// direction handles itself: the position embeddings (AttnLab folds token type 0's embedding
// into them), and the MLM decoder, tied to the word embeddings in both.

#include <string>
#include <utility>
#include <vector>

namespace attnlab::core {

/// Where a model type keeps its tensors, and where its positions start: RoBERTa numbers a
/// sequence's tokens from pad_token_id + 1 (its first rows are never used for real tokens).
struct HfBertLayout {
  std::string encoder;  ///< "bert." or "roberta."
  std::string headDense, headNorm, headBias;
  int positionOffset = 0;
};

inline HfBertLayout hfBertLayoutOf(const std::string& modelType, int padId) {
  if (modelType == "bert")
    return {"bert.", "cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
            "cls.predictions.bias", 0};
  return {"roberta.", "lm_head.dense", "lm_head.layer_norm", "lm_head.bias", padId + 1};
}

/// The checkpoint's position table and token-type table (AttnLab: positions + type 0's row).
inline std::string hfPositionTensor(const HfBertLayout& at) {
  return at.encoder + "embeddings.position_embeddings.weight";
}
inline std::string hfTokenTypeTensor(const HfBertLayout& at) {
  return at.encoder + "embeddings.token_type_embeddings.weight";
}

/// AttnLab's parameter name -> the checkpoint tensors it is (q, k and v, in that order,
/// concatenated along the output rows into the fused projection; one tensor otherwise).
using HfBertSources = std::vector<std::pair<std::string, std::vector<std::string>>>;

inline HfBertSources hfBertParameterSources(int layers, const HfBertLayout& at) {
  const std::string e = at.encoder + "embeddings.";
  HfBertSources m = {{"token_embedding.weight", {e + "word_embeddings.weight"}},
                     {"embedding_norm.weight", {e + "LayerNorm.weight"}},
                     {"embedding_norm.bias", {e + "LayerNorm.bias"}},
                     {"mlm_transform.weight", {at.headDense + ".weight"}},
                     {"mlm_transform.bias", {at.headDense + ".bias"}},
                     {"mlm_norm.weight", {at.headNorm + ".weight"}},
                     {"mlm_norm.bias", {at.headNorm + ".bias"}},
                     {"mlm_bias", {at.headBias}}};
  for (int l = 0; l < layers; ++l) {
    const std::string ours = "layers." + std::to_string(l) + ".";
    const std::string theirs = at.encoder + "encoder.layer." + std::to_string(l) + ".";
    for (const std::string p : {"weight", "bias"}) {
      m.push_back({ours + "attention.qkv." + p,
                   {theirs + "attention.self.query." + p, theirs + "attention.self.key." + p,
                    theirs + "attention.self.value." + p}});
      m.push_back({ours + "attention.output." + p, {theirs + "attention.output.dense." + p}});
      m.push_back({ours + "attention_norm." + p, {theirs + "attention.output.LayerNorm." + p}});
      m.push_back({ours + "ffn_in." + p, {theirs + "intermediate.dense." + p}});
      m.push_back({ours + "ffn_out." + p, {theirs + "output.dense." + p}});
      m.push_back({ours + "ffn_norm." + p, {theirs + "output.LayerNorm." + p}});
    }
  }
  return m;
}

}  // namespace attnlab::core
