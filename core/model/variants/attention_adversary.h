#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace attnlab::core {

struct AdversaryOptions {
  bool gumbel = false;       ///< add Gumbel noise before binarising
  double temperature = 1.0;  ///< Gumbel-sigmoid temperature
};

/// Identity in the forward pass, gradient multiplied by -1 in the backward pass.
torch::Tensor gradientReversal(const torch::Tensor& x);

/// One ASA adversary (Wu et al., the official code's per-layer adversary): two Linear(H, H)
/// maps "query" and "key" on the *detached* layer input give a single-head score matrix
///   S = (X Wq + bq)(X Wk + bk)^T / sqrt(H) + (-10000 on padding keys)
/// binarised to a keep-mask M (1 keep, 0 mask) with a straight-through estimator:
///   step (default, the code's behaviour): hard = [S > 0], soft = sigmoid(S)
///   gumbel: y = sigmoid((S + g1 - g2) / temperature), g ~ Gumbel(0,1); hard = [y > 0.5], soft = y
///   M = (hard - soft).detach() + soft
/// then a gradient reversal layer, so the adversary learns to *increase* the losses the
/// encoder minimises. Padding keys always get M = 0. Returns M [B, T, T].
class AttentionAdversaryImpl : public torch::nn::Module {
 public:
  explicit AttentionAdversaryImpl(int hidden);
  torch::Tensor forward(const torch::Tensor& layerInput, const torch::Tensor& attentionMask,
                        const AdversaryOptions& options = {});

 private:
  int m_hidden;
  torch::nn::Linear m_query{nullptr};
  torch::nn::Linear m_key{nullptr};
};
TORCH_MODULE(AttentionAdversary);

/// The additive attention bias for a keep-mask M [B, T, T]: (1 - M) * -10000 as
/// [B, 1, T, T], shared by all heads (it replaces the padding mask in the adversarial pass).
torch::Tensor adversarialMaskBias(const torch::Tensor& keepMask);

}  // namespace attnlab::core
