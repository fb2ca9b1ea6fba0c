#include "core/model/variants/qk_norm.h"

#include <torch/autograd.h>
#include <torch/torch.h>

#include <vector>

namespace attnlab::core {

namespace {

/// RMSNorm over the last dimension, y = x r g with r = 1 / sqrt(mean(x^2) + eps), with its
/// backward written out: dx = r (dy g - x^ mean(dy g x^)), x^ = x r, dg = sum dy x^.
/// Autograd through the five composed operations kept each one's output and ran a backward
/// per operation on the strided q and k views; this keeps x and r only.
struct RmsNormFunction : public torch::autograd::Function<RmsNormFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& weight, double eps) {
    auto r = (x * x).mean(-1, /*keepdim=*/true).add_(eps).rsqrt_();
    ctx->save_for_backward({x, r, weight});
    return (x * r).mul_(weight);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &x = saved[0], &r = saved[1], &weight = saved[2];
    const auto& dy = grads[0];
    const auto xhat = x * r;
    auto dyg = dy * weight;
    const auto dot = (dyg * xhat).mean(-1, /*keepdim=*/true);
    auto dx = dyg.sub_(xhat * dot).mul_(r);
    std::vector<std::int64_t> leading(static_cast<std::size_t>(x.dim() - 1));
    for (std::size_t i = 0; i < leading.size(); ++i) leading[i] = static_cast<std::int64_t>(i);
    auto dweight = (dy * xhat).sum(leading);
    return {dx, dweight, torch::Tensor()};
  }
};

}  // namespace

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
    out = RmsNormFunction::apply(xf, m_weight.to(xf.scalar_type()), m_eps);
  }
  return half ? out.to(type) : out;
}

}  // namespace attnlab::core
