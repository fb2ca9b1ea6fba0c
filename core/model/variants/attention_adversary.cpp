#include "core/model/variants/attention_adversary.h"

#include <torch/torch.h>

#include <cmath>

namespace attnlab::core {
namespace {

// BERT's additive mask value, as in the encoder (kMaskedLogit) and the official ASA code.
constexpr double kAdversaryMaskedLogit = -10000.0;

// Identity forward, negated gradient backward (Ganin & Lempitsky's GRL, alpha = 1).
struct GradientReversalFunction : public torch::autograd::Function<GradientReversalFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* /*ctx*/, const torch::Tensor& x) {
    // A view rather than x itself, as PyTorch's own GRL does, so the output gets this node
    // as its grad_fn instead of aliasing the input's.
    return x.view_as(x);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* /*ctx*/,
                                                 torch::autograd::variable_list gradOutputs) {
    return {gradOutputs[0].neg()};
  }
};

torch::Tensor gumbelNoise(const torch::Tensor& like) {
  // -log(E), E ~ Exp(1), is Gumbel(0, 1); the clamp keeps a zero draw finite.
  return -torch::empty_like(like).exponential_().clamp_min(1e-20).log();
}

}  // namespace

torch::Tensor gradientReversal(const torch::Tensor& x) {
  return GradientReversalFunction::apply(x);
}

AttentionAdversaryImpl::AttentionAdversaryImpl(int hidden) : m_hidden(hidden) {
  TORCH_CHECK(hidden > 0, "AttentionAdversary: hidden must be positive, got ", hidden);
  m_query = register_module("query", torch::nn::Linear(hidden, hidden));
  m_key = register_module("key", torch::nn::Linear(hidden, hidden));
}

torch::Tensor AttentionAdversaryImpl::forward(const torch::Tensor& layerInput,
                                              const torch::Tensor& attentionMask,
                                              const AdversaryOptions& options) {
  TORCH_CHECK(layerInput.dim() == 3 && layerInput.size(2) == m_hidden,
              "AttentionAdversary expects [B, T, ", m_hidden, "], got ", layerInput.sizes());
  const auto batch = layerInput.size(0);
  const auto length = layerInput.size(1);
  // Detached: the adversary reads the encoder's state but never trains it.
  const auto x = layerInput.detach().reshape({batch * length, m_hidden});
  const auto q = m_query(x).view({batch, length, m_hidden});
  const auto k = m_key(x).view({batch, length, m_hidden});
  auto scores = torch::matmul(q, k.transpose(1, 2)) * (1.0 / std::sqrt(double(m_hidden)));
  torch::Tensor keepKeys;  // [B, 1, T], 1 for real keys
  if (attentionMask.defined()) {
    keepKeys = attentionMask.to(scores.scalar_type()).view({batch, 1, length});
    scores = scores + (1.0 - keepKeys) * kAdversaryMaskedLogit;
  }

  torch::Tensor hard;
  torch::Tensor soft;
  if (options.gumbel) {
    TORCH_CHECK(options.temperature > 0.0, "AttentionAdversary: temperature must be positive");
    soft =
        torch::sigmoid((scores + gumbelNoise(scores) - gumbelNoise(scores)) / options.temperature);
    hard = soft.detach().gt(0.5).to(scores.scalar_type());
  } else {
    soft = torch::sigmoid(scores);
    hard = scores.detach().gt(0.0).to(scores.scalar_type());
  }
  // Straight-through: the value of `hard` with the gradient of `soft`. Written as
  // hard + (soft - soft.detach()) rather than (hard - soft).detach() + soft: the same
  // gradient, but the forward value is exactly 0 or 1 (x - x is exactly 0 in floating
  // point, while (1 - s) + s can miss 1 by an ulp).
  auto keep = hard + (soft - soft.detach());
  keep = gradientReversal(keep);
  // Padding keys are masked whatever the scores say (also exactly 0 under Gumbel noise).
  if (keepKeys.defined()) keep = keep * keepKeys;
  return keep;
}

torch::Tensor adversarialMaskBias(const torch::Tensor& keepMask) {
  TORCH_CHECK(keepMask.dim() == 3, "adversarialMaskBias expects [B, T, T], got ", keepMask.sizes());
  return ((1.0 - keepMask) * kAdversaryMaskedLogit).unsqueeze(1);
}

}  // namespace attnlab::core
