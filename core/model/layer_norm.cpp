#include "core/model/layer_norm.h"

#include <torch/torch.h>

namespace attnlab::core {

AffineLayerNormImpl::AffineLayerNormImpl(std::int64_t size, double eps, bool withBias)
    : m_size(size), m_eps(eps) {
  weight = register_parameter("weight", torch::ones({size}));
  if (withBias) bias = register_parameter("bias", torch::zeros({size}));
}

torch::Tensor AffineLayerNormImpl::forward(const torch::Tensor& x) {
  // at::layer_norm is what torch::nn::LayerNorm calls: the same kernel, the same autocast
  // rule (float32 under bfloat16/float16), an undefined bias meaning none.
  return at::layer_norm(x, {m_size}, weight, bias, m_eps);
}

void AffineLayerNormImpl::resetParameters() {
  torch::NoGradGuard noGrad;
  weight.fill_(1.0);
  if (bias.defined()) bias.zero_();
}

}  // namespace attnlab::core
