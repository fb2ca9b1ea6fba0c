#pragma once

#include "core/model/variants/qk_norm.h"

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace attnlab::core {

/// Differential attention (Ye et al. 2024, microsoft/unilm Diff-Transformer), one per layer:
/// each head's q and k are split into halves (q1, q2), (k1, k2) of d/2 dimensions, and
///   A = softmax(q1 k1^T / sqrt(d/2)) - lambda softmax(q2 k2^T / sqrt(d/2))
///   lambda = exp(lq1 . lk1) - exp(lq2 . lk2) + lambda_init
///   lambda_init = 0.8 - 0.6 exp(-0.3 l), l the 0-based layer index (the paper's
///                 0.8 - 0.6 exp(-0.3 (l' - 1)) with l' from 1; the code passes 0-based depth)
///   out = RMSNorm(A v) (1 - lambda_init), the RMSNorm over each head's d dimensions with
///         a scale shared by the heads (the code's subln, eps 1e-5).
/// lq1, lk1, lq2, lk2 [d/2] are shared by the layer's heads and start from N(0, 0.1), as
/// in the code. This layout is the code's with num_heads = model.heads: head i's q1 is its
/// first d/2 channels. The paper's parameter-matched model halves the heads of the baseline.
class DifferentialAttentionImpl : public torch::nn::Module {
 public:
  DifferentialAttentionImpl(int headSize, int layerIndex);
  /// lambda as a 0-d tensor with its graph.
  torch::Tensor lambda() const;
  /// RMSNorm(context) (1 - lambda_init); context [B, heads, T, d].
  torch::Tensor finish(const torch::Tensor& context);
  double lambdaInit() const { return m_lambdaInit; }
  void resetParameters();

 private:
  double m_lambdaInit;
  torch::Tensor m_lq1, m_lk1, m_lq2, m_lk2;
  HeadNorm m_norm{nullptr};
};
TORCH_MODULE(DifferentialAttention);

}  // namespace attnlab::core
