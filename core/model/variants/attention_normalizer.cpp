#include "core/model/variants/attention_normalizer.h"

#include "core/config/run_config.h"

#include <torch/torch.h>

namespace attnlab::core {

namespace {

/// Padding and ASA's mask add -10000 (attention_context.h); anything below half of that
/// is a masked key, anything a model computes is far above it.
constexpr double kMaskedBelow = -5000.0;

/// 1 for the real keys, 0 for the masked ones, in x's type.
torch::Tensor realKeys(const torch::Tensor& mask, const torch::Tensor& like) {
  return mask.gt(kMaskedBelow).to(like.scalar_type());
}

}  // namespace

bool probabilityRows(Normalizer kind) {
  return kind == Normalizer::Softmax;
}

AttentionNormalizerImpl::AttentionNormalizerImpl(const AttentionConfig& attention, int heads)
    : m_kind(attention.normalizer),
      m_heads(heads),
      m_zeta(attention.clipped.zeta),
      m_gamma(attention.clipped.gamma) {
  if (m_kind == Normalizer::Softmax1 && attention.sinkLogit == SinkLogit::Learned) {
    // 0 at the start: the model begins as softmax off by one and learns how much of each
    // head's attention may go nowhere.
    m_sink = register_parameter("sink_logit", torch::zeros({heads}));
  }
}

void AttentionNormalizerImpl::resetParameters() {
  torch::NoGradGuard noGrad;
  if (m_sink.defined()) m_sink.zero_();
}

torch::Tensor AttentionNormalizerImpl::sinkLogits() const {
  return m_sink.defined() ? m_sink.detach() : torch::Tensor();
}

torch::Tensor AttentionNormalizerImpl::forward(const torch::Tensor& scores,
                                               const torch::Tensor& mask) {
  const auto x = mask.defined() ? scores + mask : scores;
  switch (m_kind) {
    case Normalizer::Softmax:
      return torch::softmax(x, -1);
    case Normalizer::Softmax1:
      return softmax1(x);
    case Normalizer::Softpick:
      return softpick(x, mask);
    case Normalizer::Sigmoid:
      return sigmoid(x, mask);
    case Normalizer::Clipped:
      return torch::clamp((m_zeta - m_gamma) * torch::softmax(x, -1) + m_gamma, 0.0, 1.0);
  }
  return torch::softmax(x, -1);
}

torch::Tensor AttentionNormalizerImpl::softmax1(const torch::Tensor& x) const {
  // The sink is one more key in the softmax whose value is zero: append its logit as a
  // column, normalise, drop the column (one fused softmax forward and backward).
  auto sink = m_sink.defined() ? m_sink.to(x.scalar_type()) : torch::zeros({m_heads}, x.options());
  sink = sink.view({1, m_heads, 1, 1}).expand({x.size(0), m_heads, x.size(2), 1});
  const auto keys = x.size(-1);
  return torch::softmax(torch::cat({x, sink}, -1), -1).slice(-1, 0, keys);
}

torch::Tensor AttentionNormalizerImpl::softpick(const torch::Tensor& x,
                                                const torch::Tensor& mask) const {
  // e^(x-s) - e^-s = e^-s (e^x - 1): the common factor cancels between numerator and
  // denominator. s = 0 for ordinary rows, where expm1 keeps e^x - 1 exact near x = 0 (the
  // reference's e^(x-m) - e^-m loses it in float32: x - m rounds at m's scale); a row with a
  // score above 80, where e^x could overflow float32, shifts by its max. s has no gradient.
  const auto m = std::get<0>(x.detach().max(-1, true));
  const auto s = m * m.gt(80.0).to(m.scalar_type());
  auto shifted = torch::expm1(x - s) - torch::expm1(-s);
  if (mask.defined()) shifted = shifted * realKeys(mask, x);
  // The reference code adds 1e-8 to the denominator for rows whose inputs are all exactly 0;
  // a floor does the same there without shifting every other row by 1e-8 e^m.
  const auto denominator = shifted.abs().sum(-1, true).clamp_min(1e-30);
  return torch::relu(shifted) / denominator;
}

torch::Tensor AttentionNormalizerImpl::sigmoid(const torch::Tensor& x,
                                               const torch::Tensor& mask) const {
  // b = -log n with n the real keys of each row, so that sum_j sigmoid starts near 1 as the
  // paper's analysis asks (apple/ml-sigmoid-attention uses the sequence length).
  if (!mask.defined()) return torch::sigmoid(x - std::log(double(x.size(-1))));
  const auto n = realKeys(mask, x).sum(-1, true).clamp_min(1.0);
  return torch::sigmoid(x - torch::log(n));
}

}  // namespace attnlab::core
