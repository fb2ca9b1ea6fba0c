#pragma once

#include "core/model/self_attention.h"

#include <torch/nn/modules/normalization.h>

namespace attnlab::core {

/// One transformer encoder layer: self-attention and a GELU feed-forward block, each
/// with a residual connection and LayerNorm, in Post-LN (BERT, RoBERTa: LN after the
/// residual sum) or Pre-LN (GPT-2: LN on the branch input) order.
class EncoderLayerImpl : public torch::nn::Module {
 public:
  EncoderLayerImpl(const ModelConfig& model, const AttentionConfig& attention, int layerIndex,
                   int sequenceLength);

  torch::Tensor forward(const torch::Tensor& x, AttentionContext& context);

  SelfAttention& attention() { return m_attention; }

 private:
  torch::Tensor feedForward(const torch::Tensor& x);

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
