#include "core/model/self_attention.h"

#include "core/config/run_config.h"

#include <torch/torch.h>

#include <cmath>

namespace attnlab::core {

SelfAttentionImpl::SelfAttentionImpl(const ModelConfig& config)
    : m_heads(config.heads), m_headSize(config.hiddenSize / config.heads) {
  m_qkv = register_module("qkv", torch::nn::Linear(config.hiddenSize, 3 * config.hiddenSize));
  m_output = register_module("output", torch::nn::Linear(config.hiddenSize, config.hiddenSize));
  m_attentionDropout =
      register_module("attention_dropout", torch::nn::Dropout(config.attentionDropout));
}

torch::Tensor SelfAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& additiveMask,
                                         AttentionCapture* capture) {
  const auto batch = x.size(0);
  const auto length = x.size(1);
  // [B, T, 3H] -> [3, B, heads, T, d]
  auto qkv = m_qkv(x).view({batch, length, 3, m_heads, m_headSize}).permute({2, 0, 3, 1, 4});
  auto q = qkv[0];
  auto k = qkv[1];
  auto v = qkv[2];

  auto scores = torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(double(m_headSize)));
  if (capture != nullptr && capture->wantScores) capture->scores.push_back(scores.detach());

  auto probs = torch::softmax(scores + additiveMask, -1);
  if (capture != nullptr && capture->wantProbabilities) {
    capture->probabilities.push_back(probs.detach());
  }

  auto context = torch::matmul(m_attentionDropout(probs), v);  // [B, heads, T, d]
  context = context.transpose(1, 2).reshape({batch, length, m_heads * m_headSize});
  return m_output(context);
}

}  // namespace attnlab::core
