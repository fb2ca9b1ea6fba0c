#pragma once

#include "core/model/self_attention.h"

#include <torch/nn/modules/normalization.h>

namespace attnlab::core {

/// One transformer encoder layer: self-attention and a GELU feed-forward block, each
/// with a residual connection and LayerNorm, in Post-LN (BERT, RoBERTa: LN after the
/// residual sum) or Pre-LN (GPT-2: LN on the branch input) order. Hook points
/// "blocks.{L}.resid_pre|resid_mid|resid_post" and "blocks.{L}.mlp.*" (docs/hook-points.md).
class EncoderLayerImpl : public torch::nn::Module {
 public:
  EncoderLayerImpl(const ModelConfig& model, const AttentionConfig& attention, int layerIndex,
                   int sequenceLength);

  torch::Tensor forward(const torch::Tensor& x, AttentionContext& context);

  SelfAttention& attention() { return m_attention; }

 private:
  torch::Tensor feedForward(const torch::Tensor& x, AttentionContext& context);
  /// The hook point "blocks.{L}.<name>" of this layer.
  torch::Tensor hook(AttentionContext& context, const char* name, torch::Tensor value) const;
  /// The same for rows [B*T, F] of a [B, T, .] input `like`: hooked as [B, T, F].
  torch::Tensor hookRows(AttentionContext& context, const char* name, torch::Tensor rows,
                         const torch::Tensor& like) const;

  std::string m_hookPrefix;  ///< "blocks.{L}."

  bool m_preNorm;
  SelfAttention m_attention{nullptr};
  torch::nn::LayerNorm m_attentionNorm{nullptr};
  torch::nn::Linear m_ffnIn{nullptr};
  torch::nn::Linear m_ffnOut{nullptr};
  torch::nn::LayerNorm m_ffnNorm{nullptr};
  FastDropout m_dropout{nullptr};
};
TORCH_MODULE(EncoderLayer);

}  // namespace attnlab::core
