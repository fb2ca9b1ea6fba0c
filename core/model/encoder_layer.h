#pragma once

#include "core/model/layer_norm.h"
#include "core/model/self_attention.h"

namespace attnlab::core {

/// One transformer encoder layer: self-attention and a feed-forward block (GELU, or GeGLU as
/// in ModernBERT), each with a residual connection and LayerNorm, in Post-LN (BERT, RoBERTa:
/// LN after the residual sum) or Pre-LN (GPT-2, ModernBERT: LN on the branch input) order;
/// ModernBERT leaves out layer 0's attention norm (model.first_attention_norm). Hook points
/// "blocks.{L}.resid_pre|resid_mid|resid_post" and "blocks.{L}.mlp.*" (docs/hook-points.md).
class EncoderLayerImpl : public torch::nn::Module {
 public:
  EncoderLayerImpl(const ModelConfig& model, const AttentionConfig& attention, int layerIndex,
                   int sequenceLength);

  torch::Tensor forward(const torch::Tensor& x, AttentionContext& context);

  SelfAttention& attention() { return m_attention; }

 private:
  torch::Tensor feedForward(const torch::Tensor& x, AttentionContext& context);
  /// The hook point "blocks.{L}.<name>" of this layer.
  torch::Tensor hook(AttentionContext& context, const char* name, torch::Tensor value) const;
  /// The same for rows [B*T, F] of a [B, T, .] input `like`: hooked as [B, T, F].
  torch::Tensor hookRows(AttentionContext& context, const char* name, torch::Tensor rows,
                         const torch::Tensor& like) const;

  std::string m_hookPrefix;  ///< "blocks.{L}."

  bool m_preNorm;
  bool m_geglu;
  SelfAttention m_attention{nullptr};
  AffineLayerNorm m_attentionNorm{nullptr};  // null: identity (Pre-LN layer 0, ModernBERT)
  torch::nn::Linear m_ffnIn{nullptr};        // [H -> F], or [H -> 2F] for GeGLU (input, gate)
  torch::nn::Linear m_ffnOut{nullptr};
  AffineLayerNorm m_ffnNorm{nullptr};
  FastDropout m_dropout{nullptr};
};
TORCH_MODULE(EncoderLayer);

}  // namespace attnlab::core
