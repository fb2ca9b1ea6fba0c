#include "core/model/self_attention.h"

#include "core/config/run_config.h"

#include <torch/torch.h>

#include <cmath>

namespace attnlab::core {

SelfAttentionImpl::SelfAttentionImpl(const ModelConfig& config)
    : m_heads(config.heads), m_headSize(config.hiddenSize / config.heads) {
  m_qkv = register_module("qkv", torch::nn::Linear(config.hiddenSize, 3 * config.hiddenSize));
  m_output = register_module("output", torch::nn::Linear(config.hiddenSize, config.hiddenSize));
  m_attentionDropout = register_module("attention_dropout", FastDropout(config.attentionDropout));
}

torch::Tensor SelfAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& additiveMask,
                                         AttentionCapture* capture) {
  const auto batch = x.size(0);
  const auto length = x.size(1);
  // Linear layers see 2-D [B*T, H] input so LibTorch takes the fused addmm path (bias
  // inside the GEMM) rather than matmul + a separate add.
  const auto flat = x.reshape({batch * length, x.size(2)});
  // [B*T, 3H] -> [3, B, heads, T, d]; unbind (not three selects) so the backward pass is
  // one stack instead of three zero-filled full-size copies.
  auto parts =
      m_qkv(flat).view({batch, length, 3, m_heads, m_headSize}).permute({2, 0, 3, 1, 4}).unbind(0);
  const auto& q = parts[0];
  const auto& k = parts[1];
  const auto& v = parts[2];

  auto scores = torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(double(m_headSize)));
  if (capture != nullptr && capture->wantScores) capture->scores.push_back(scores.detach());

  auto probs = torch::softmax(scores + additiveMask, -1);
  if (capture != nullptr && capture->wantProbabilities) {
    capture->probabilities.push_back(probs.detach());
  }

  auto context = torch::matmul(m_attentionDropout(probs), v);  // [B, heads, T, d]
  context = context.transpose(1, 2).reshape({batch * length, m_heads * m_headSize});
  return m_output(context).view({batch, length, -1});
}

}  // namespace attnlab::core
