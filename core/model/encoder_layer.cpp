#include "core/model/encoder_layer.h"

#include "core/config/run_config.h"

#include <torch/torch.h>

namespace attnlab::core {

EncoderLayerImpl::EncoderLayerImpl(const ModelConfig& config, const AttentionConfig& attention,
                                   int layerIndex, int sequenceLength)
    : m_hookPrefix("blocks." + std::to_string(layerIndex) + "."),
      m_preNorm(config.norm == NormPlacement::Pre),
      m_geglu(config.feedForward == FeedForward::Geglu) {
  const auto hidden = config.hiddenSize;
  const auto linear = [&](int in, int out) {
    return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(config.bias));
  };
  m_attention =
      register_module("attention", SelfAttention(config, attention, layerIndex, sequenceLength));
  if (!(m_preNorm && layerIndex == 0 && !config.firstAttentionNorm)) {
    m_attentionNorm = register_module("attention_norm",
                                      AffineLayerNorm(hidden, config.layerNormEps, config.bias));
  }
  m_ffnIn = register_module("ffn_in", linear(hidden, (m_geglu ? 2 : 1) * config.ffnSize));
  m_ffnOut = register_module("ffn_out", linear(config.ffnSize, hidden));
  m_ffnNorm =
      register_module("ffn_norm", AffineLayerNorm(hidden, config.layerNormEps, config.bias));
  m_dropout = register_module("dropout", FastDropout(config.dropout));
}

torch::Tensor EncoderLayerImpl::hook(AttentionContext& context, const char* name,
                                     torch::Tensor value) const {
  if (context.hooks == nullptr) return value;
  return context.hooks->apply(m_hookPrefix + name, std::move(value));
}

torch::Tensor EncoderLayerImpl::hookRows(AttentionContext& context, const char* name,
                                         torch::Tensor rows, const torch::Tensor& like) const {
  if (context.hooks == nullptr) return rows;
  const auto width = rows.size(-1);
  return hook(context, name, rows.view({like.size(0), like.size(1), width})).reshape({-1, width});
}

torch::Tensor EncoderLayerImpl::feedForward(const torch::Tensor& x, AttentionContext& context) {
  // 2-D input for the fused addmm path (see SelfAttentionImpl::forward).
  const auto flat = x.reshape({-1, x.size(-1)});
  auto projected = m_ffnIn(flat);
  torch::Tensor activated;
  if (m_geglu) {
    // GeGLU as ModernBERT lays it out: one projection, its first half through GELU, times
    // its second half (the gate).
    const auto parts = projected.chunk(2, -1);
    const auto inner = hookRows(context, "mlp.pre", parts[0], x);
    activated = torch::gelu(inner) * hookRows(context, "mlp.gate", parts[1], x);
  } else {
    activated = torch::gelu(hookRows(context, "mlp.pre", projected, x));
  }
  return hook(context, "mlp.out", m_ffnOut(activated).view(x.sizes()));
}

torch::Tensor EncoderLayerImpl::forward(const torch::Tensor& input, AttentionContext& context) {
  const auto x = hook(context, "resid_pre", input);
  if (m_preNorm) {
    const auto attentionInput = m_attentionNorm ? m_attentionNorm(x) : x;
    auto h = hook(context, "resid_mid", x + m_dropout(m_attention(attentionInput, context)));
    return hook(context, "resid_post", h + m_dropout(feedForward(m_ffnNorm(h), context)));
  }
  auto h = hook(context, "resid_mid", m_attentionNorm(x + m_dropout(m_attention(x, context))));
  return hook(context, "resid_post", m_ffnNorm(h + m_dropout(feedForward(h, context))));
}

}  // namespace attnlab::core
