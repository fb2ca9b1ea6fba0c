#pragma once

#include "core/config/config_choices.h"

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace attnlab::core {

/// QK-norm (Dehghani et al. 2023; Wortsman et al. 2023; OLMo 2, Qwen3): a normalisation of
/// each head's query or key vector over the head dimension d, with a learned scale per
/// dimension shared by the heads (and, with `shift`, a learned shift likewise):
///   layer: (x - mean(x)) / sqrt(var(x) + eps) * g [+ b]
///   rms:   x / sqrt(mean(x^2) + eps) * g
/// g starts at 1, b at 0. The keys' norm takes no shift: b added to every key adds q_i . b
/// to a whole row of scores, which the softmax cancels (its gradient is identically zero). x: [...,
/// d]; the statistics are taken in float32 at least (under bfloat16/float16 autocast the queries
/// arrive in half precision) and the result is returned in x's type.
class HeadNormImpl : public torch::nn::Module {
 public:
  /// `shift`: a learned b (LayerNorm only; the queries' norm).
  HeadNormImpl(QkNorm kind, int headSize, double eps, bool shift);
  torch::Tensor forward(const torch::Tensor& x);
  void resetParameters();

 private:
  QkNorm m_kind;
  double m_eps;
  torch::Tensor m_weight;  ///< g [d]
  torch::Tensor m_bias;    ///< b [d] (layer with shift only)
};
TORCH_MODULE(HeadNorm);

}  // namespace attnlab::core
