#pragma once

#include "core/model/attention_capture.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>
#include "core/model/fast_dropout.h"

namespace attnlab::core {

struct ModelConfig;

/// Multi-head self-attention, written as explicit stages so the papers' variants can
/// hook in between them without rewriting the block:
///   project (q, k, v) -> scores = q k^T / sqrt(d) -> [additive terms] -> + padding mask
///   -> softmax -> [probability transforms] -> dropout -> context = p v -> [context
///   transforms] -> output projection.
/// The stages in brackets are where the attention variants attach.
class SelfAttentionImpl : public torch::nn::Module {
 public:
  SelfAttentionImpl(const ModelConfig& config);

  /// x: [B, T, H]; additiveMask: [B, 1, 1, T] with 0 for keys to attend and a large
  /// negative value for padding. Appends this layer's probabilities/scores to `capture`
  /// when it asks for them.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& additiveMask,
                        AttentionCapture* capture = nullptr);

  int heads() const { return m_heads; }
  int headSize() const { return m_headSize; }

 private:
  int m_heads;
  int m_headSize;
  // One fused projection for q, k and v: one matrix product instead of three.
  torch::nn::Linear m_qkv{nullptr};
  torch::nn::Linear m_output{nullptr};
  FastDropout m_attentionDropout{nullptr};
};
TORCH_MODULE(SelfAttention);

}  // namespace attnlab::core
