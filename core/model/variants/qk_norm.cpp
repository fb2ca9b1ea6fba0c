#include "core/model/variants/qk_norm.h"

#include <torch/torch.h>

namespace attnlab::core {

HeadNormImpl::HeadNormImpl(QkNorm kind, int headSize, double eps, bool shift)
    : m_kind(kind), m_eps(eps) {
  m_weight = register_parameter("weight", torch::ones({headSize}));
  if (m_kind == QkNorm::Layer && shift)
    m_bias = register_parameter("bias", torch::zeros({headSize}));
}

void HeadNormImpl::resetParameters() {
  torch::NoGradGuard noGrad;
  m_weight.fill_(1.0);
  if (m_bias.defined()) m_bias.zero_();
}

torch::Tensor HeadNormImpl::forward(const torch::Tensor& x) {
  const auto type = x.scalar_type();
  const bool half = type == torch::kHalf || type == torch::kBFloat16;
  const auto xf = half ? x.to(torch::kFloat) : x;
  const auto d = x.size(-1);
  torch::Tensor out;
  if (m_kind == QkNorm::Layer) {
    const auto bias = m_bias.defined() ? m_bias.to(xf.scalar_type()) : torch::Tensor();
    out = torch::layer_norm(xf, {d}, m_weight.to(xf.scalar_type()), bias, m_eps);
  } else {
    const auto meanSquare = xf.pow(2).mean(-1, /*keepdim=*/true);
    out = xf * torch::rsqrt(meanSquare + m_eps) * m_weight.to(xf.scalar_type());
  }
  return half ? out.to(type) : out;
}

}  // namespace attnlab::core
