#include "core/model/variants/conv_attention.h"

#include <torch/torch.h>

#include <cmath>

namespace attnlab::core {

ConvAttention1dImpl::ConvAttention1dImpl(int heads, int length) : m_heads(heads), m_length(length) {
  TORCH_CHECK(heads > 0 && length > 0, "ConvAttention1d: heads (", heads, ") and length (", length,
              ") must be positive");
  m_weight = register_parameter("weight", torch::empty({heads * length, length, 3}));
  m_bias = register_parameter("bias", torch::empty({heads * length}));
  resetParameters();
}

void ConvAttention1dImpl::resetParameters() {
  torch::NoGradGuard noGrad;
  // Keras Conv1D kernel (3, T, T) per head: fan_in = fan_out = 3 T, so the glorot-uniform
  // limit is sqrt(6 / (6 T)).
  const double limit = std::sqrt(6.0 / (2.0 * 3.0 * m_length));
  m_weight.uniform_(-limit, limit);
  m_bias.zero_();
}

torch::Tensor ConvAttention1dImpl::forward(const torch::Tensor& probabilities) {
  TORCH_CHECK(probabilities.dim() == 4, "ConvAttention1d expects [B, H, T, T], got ",
              probabilities.sizes());
  TORCH_CHECK(probabilities.size(1) == m_heads, "ConvAttention1d was built for ", m_heads,
              " heads, got ", probabilities.size(1));
  TORCH_CHECK(probabilities.size(2) == m_length && probabilities.size(3) == m_length,
              "ConvAttention1d was built for length ", m_length,
              " (it has that many filters), got ", probabilities.size(2), " x ",
              probabilities.size(3));
  const auto batch = probabilities.size(0);
  // conv1d wants [N, channels, positions]: the keys are the channels and the queries the
  // positions, so swap the last two axes and fold the heads into the channels; groups =
  // heads keeps each head's filters on its own keys.
  auto input = probabilities.transpose(2, 3).reshape({batch, m_heads * m_length, m_length});
  auto out = torch::nn::functional::conv1d(
      input, m_weight,
      torch::nn::functional::Conv1dFuncOptions().bias(m_bias).padding(1).groups(m_heads));
  // [B, H*F, T(query)] -> [B, H, T(query), F]
  return torch::relu(out.view({batch, m_heads, m_length, m_length}).transpose(2, 3));
}

ConvAttention2dImpl::ConvAttention2dImpl(int heads) : m_heads(heads) {
  TORCH_CHECK(heads > 0, "ConvAttention2d: heads must be positive, got ", heads);
  m_weight = register_parameter("weight", torch::empty({heads, 1, 3, 3}));
  m_bias = register_parameter("bias", torch::empty({heads}));
  resetParameters();
}

void ConvAttention2dImpl::resetParameters() {
  torch::NoGradGuard noGrad;
  // Keras Conv2D kernel (3, 3, 1, 1): fan_in = fan_out = 9.
  const double limit = std::sqrt(6.0 / 18.0);
  m_weight.uniform_(-limit, limit);
  m_bias.zero_();
}

torch::Tensor ConvAttention2dImpl::forward(const torch::Tensor& probabilities) {
  TORCH_CHECK(probabilities.dim() == 4, "ConvAttention2d expects [B, H, T, T], got ",
              probabilities.sizes());
  TORCH_CHECK(probabilities.size(1) == m_heads, "ConvAttention2d was built for ", m_heads,
              " heads, got ", probabilities.size(1));
  // The heads are the channels; groups = heads gives every head its own single filter.
  auto out = torch::nn::functional::conv2d(
      probabilities, m_weight,
      torch::nn::functional::Conv2dFuncOptions().bias(m_bias).padding(1).groups(m_heads));
  return torch::relu(out);
}

}  // namespace attnlab::core
