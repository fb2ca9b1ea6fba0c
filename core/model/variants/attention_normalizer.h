#pragma once

#include "core/config/config_choices.h"

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace attnlab::core {

struct AttentionConfig;

/// What turns each row of masked scores x_i. into attention weights (attention.normalizer;
/// docs/variants.md, "Softmax alternatives"). Over the real keys j of a row:
///   softmax:  e^x_ij / sum_j e^x_ij
///   softmax1: e^x_ij / (e^b_h + sum_j e^x_ij), b_h a learned logit per head (gpt-oss's
///             sinks, starting at 0) or 0 (softmax off by one)
///   softpick: ReLU(e^x_ij - 1) / sum_j |e^x_ij - 1| (Zuhri et al. 2025), computed as
///             expm1(x_ij) directly, and as e^(x-m) - e^-m (the reference code's form)
///             only in a row whose max m exceeds 80, where e^x would overflow float32; a
///             row of exact zeros gives zeros
///   sigmoid:  sigmoid(x_ij - log n_i), n_i the real keys of row i (Ramapuram et al. 2024)
///   clipped:  clip((zeta - gamma) softmax(x)_ij + gamma, 0, 1) (Bondarenko et al. 2023)
/// A key is masked where the additive bias is -10000 (padding, ASA's adversary): the softmax
/// family gives it e^-10000 = 0; softpick and sigmoid leave it out of the sum and of n.
/// Only softmax rows sum to 1 (probabilityRows()).
class AttentionNormalizerImpl : public torch::nn::Module {
 public:
  AttentionNormalizerImpl(const AttentionConfig& attention, int heads);
  /// scores: [B, heads, T, S] before the mask; mask: the additive bias broadcastable to it,
  /// or undefined (no masked key).
  torch::Tensor forward(const torch::Tensor& scores, const torch::Tensor& mask);
  /// softmax1's learned logits [heads] (detached), or undefined.
  torch::Tensor sinkLogits() const;
  Normalizer kind() const { return m_kind; }
  /// The learned sink logits back to 0 (softmax off by one).
  void resetParameters();

 private:
  torch::Tensor softmax1(const torch::Tensor& x) const;
  torch::Tensor softpick(const torch::Tensor& x, const torch::Tensor& mask) const;
  torch::Tensor sigmoid(const torch::Tensor& x, const torch::Tensor& mask) const;

  Normalizer m_kind;
  int m_heads;
  double m_zeta, m_gamma;
  torch::Tensor m_sink;  ///< b_h [heads]: learned softmax1 only
};
TORCH_MODULE(AttentionNormalizer);

/// True where a normalizer's rows are probability distributions (softmax).
bool probabilityRows(Normalizer kind);

}  // namespace attnlab::core
