#include "core/model/encoder_layer.h"

#include "core/config/run_config.h"

#include <torch/torch.h>

namespace attnlab::core {

EncoderLayerImpl::EncoderLayerImpl(const ModelConfig& config, const AttentionConfig& attention,
                                   int layerIndex, int sequenceLength)
    : m_preNorm(config.norm == NormPlacement::Pre) {
  const auto norm = torch::nn::LayerNormOptions({config.hiddenSize}).eps(config.layerNormEps);
  m_attention =
      register_module("attention", SelfAttention(config, attention, layerIndex, sequenceLength));
  m_attentionNorm = register_module("attention_norm", torch::nn::LayerNorm(norm));
  m_ffnIn = register_module("ffn_in", torch::nn::Linear(config.hiddenSize, config.ffnSize));
  m_ffnOut = register_module("ffn_out", torch::nn::Linear(config.ffnSize, config.hiddenSize));
  m_ffnNorm = register_module("ffn_norm", torch::nn::LayerNorm(norm));
  m_dropout = register_module("dropout", FastDropout(config.dropout));
}

torch::Tensor EncoderLayerImpl::feedForward(const torch::Tensor& x) {
  // 2-D input for the fused addmm path (see SelfAttentionImpl::forward).
  const auto flat = x.reshape({-1, x.size(-1)});
  return m_ffnOut(torch::gelu(m_ffnIn(flat))).view(x.sizes());
}

torch::Tensor EncoderLayerImpl::forward(const torch::Tensor& x, AttentionContext& context) {
  if (m_preNorm) {
    auto h = x + m_dropout(m_attention(m_attentionNorm(x), context));
    return h + m_dropout(feedForward(m_ffnNorm(h)));
  }
  auto h = m_attentionNorm(x + m_dropout(m_attention(x, context)));
  return m_ffnNorm(h + m_dropout(feedForward(h)));
}

}  // namespace attnlab::core
