#pragma once

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace attnlab::core {

/// LayerNorm over the last dimension with a learned scale and, optionally, a learned shift:
/// (x - mean) / sqrt(var + eps) * weight [+ bias]. LibTorch's torch::nn::LayerNorm always
/// has both; ModernBERT's norms have no bias (model.bias = false). The parameters keep
/// torch::nn::LayerNorm's names ("weight", "bias"), so checkpoints and Hugging Face names
/// are unchanged.
class AffineLayerNormImpl : public torch::nn::Module {
 public:
  AffineLayerNormImpl(std::int64_t size, double eps, bool bias);
  torch::Tensor forward(const torch::Tensor& x);
  /// weight 1, bias 0.
  void resetParameters();

  torch::Tensor weight;
  torch::Tensor bias;  ///< undefined without a shift

 private:
  std::int64_t m_size;
  double m_eps;
};
TORCH_MODULE(AffineLayerNorm);

}  // namespace attnlab::core
