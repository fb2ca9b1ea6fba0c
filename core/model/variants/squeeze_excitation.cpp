#include "core/model/variants/squeeze_excitation.h"

#include <torch/torch.h>

#include <algorithm>

namespace attnlab::core {

LayerSqueezeExcitationImpl::LayerSqueezeExcitationImpl(int layers, int ratio, double biasInit)
    : m_biasInit(biasInit) {
  TORCH_CHECK(layers >= 1, "LayerSqueezeExcitation: layers must be positive, got ", layers);
  TORCH_CHECK(ratio >= 1, "LayerSqueezeExcitation: ratio must be positive, got ", ratio);
  const int reduced = std::max(1, layers / ratio);
  m_fc1 = register_module("fc1", torch::nn::Linear(layers, reduced));
  m_fc2 = register_module("fc2", torch::nn::Linear(reduced, layers));
  // BERT's initialiser range; the owning model calls resetParameters with its own.
  resetParameters(0.02);
}

void LayerSqueezeExcitationImpl::resetParameters(double initStd) {
  torch::NoGradGuard noGrad;
  for (auto* linear : {m_fc1.get(), m_fc2.get()}) {
    linear->weight.normal_(0.0, initStd);
    linear->bias.fill_(m_biasInit);
  }
}

torch::Tensor LayerSqueezeExcitationImpl::forward(const std::vector<torch::Tensor>& layerOutputs,
                                                  const torch::Tensor& attentionMask) {
  const auto layers = static_cast<std::int64_t>(layerOutputs.size());
  TORCH_CHECK(layers == m_fc1->options.in_features(), "LayerSqueezeExcitation was built for ",
              m_fc1->options.in_features(), " layers, got ", layers);
  std::vector<torch::Tensor> squeezed;
  squeezed.reserve(layerOutputs.size());
  torch::Tensor keep;
  torch::Tensor denominator;
  for (const auto& u : layerOutputs) {
    TORCH_CHECK(u.dim() == 3, "LayerSqueezeExcitation expects [B, T, H] layers, got ", u.sizes());
    // Sum the features first ([B, T]), then drop the padding with masked_fill rather than
    // a multiplication, so not even a non-finite padded value can reach the mean.
    auto perToken = u.sum(-1);
    if (!keep.defined()) {
      keep = attentionMask.defined()
                 ? attentionMask.to(torch::kBool)
                 : torch::ones_like(perToken, perToken.options().dtype(torch::kBool));
      denominator = keep.sum(1).clamp_min(1).to(u.scalar_type()) * double(u.size(2));
    }
    squeezed.push_back(perToken.masked_fill(keep.logical_not(), 0).sum(1) / denominator);
  }
  auto z = torch::stack(squeezed, 1);  // [B, L]
  return torch::sigmoid(m_fc2(torch::relu(m_fc1(z))));
}

torch::Tensor LayerSqueezeExcitationImpl::combine(const std::vector<torch::Tensor>& layerOutputs,
                                                  const torch::Tensor& weights,
                                                  bool weightedAverage) {
  const auto layers = static_cast<std::int64_t>(layerOutputs.size());
  TORCH_CHECK(layers >= 1, "LayerSqueezeExcitation::combine: no layers");
  TORCH_CHECK(weights.dim() == 2 && weights.size(1) == layers,
              "LayerSqueezeExcitation::combine: weights must be [B, ", layers, "], got ",
              weights.sizes());
  auto weight = [&](std::int64_t l) { return weights.select(1, l).view({-1, 1, 1}); };
  if (!weightedAverage) return weight(layers - 1) * layerOutputs.back();
  auto sum = weight(0) * layerOutputs[0];
  for (std::int64_t l = 1; l < layers; ++l) sum = sum + weight(l) * layerOutputs[l];
  return sum / weights.sum(1).view({-1, 1, 1});
}

}  // namespace attnlab::core
