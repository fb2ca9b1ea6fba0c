#pragma once

#include "core/config/config_choices.h"
#include "core/model/attention_context.h"
#include "core/model/fast_dropout.h"
#include "core/model/rotary_positions.h"
#include "core/model/variants/attention_normalizer.h"
#include "core/model/variants/conv_attention.h"
#include "core/model/variants/differential_attention.h"
#include "core/model/variants/position_interactions.h"
#include "core/model/variants/qk_norm.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <string>

namespace attnlab::core {

struct ModelConfig;
struct AttentionConfig;

/// Multi-head self-attention written as explicit stages, so the five papers' variants
/// attach between them instead of forking the block:
///   project q, k, v -> [QK-norm: LayerNorm/RMSNorm of each head's q and k]
///   -> [rotary positions: q and k turned by position (RoPE)] -> [temperature: tau_q, tau_k, tau_v
///   per head] -> [blur values]
///   -> scores = q k^T / sqrt(d) -> [position interactions (Dufter)]
///   -> [residual scores: running sum or mean over layers (RealFormer)]
///   -> + mask (padding, or ASA's adversarial mask; plus the window's band in a windowed
///      layer) -> softmax [or softmax1, softpick,
///      sigmoid, clipped softmax: attention.normalizer]
///   [differential attention: two softmax maps of q and k's halves, p1 - lambda p2]
///   -> [convolution over the attention matrix, 1-D or 2-D (Dufter)] -> dropout
///   -> context = p v -> [differential: RMSNorm per head, times (1 - lambda_init)]
///   -> [output gate: sigmoid(X W + b) per head or channel (Qiu et al.)]
///   -> [blur context (SesameBERT)] -> output projection
class SelfAttentionImpl : public torch::nn::Module {
 public:
  /// `layerIndex` decides layer-specific variants (position interactions in the first
  /// layer only, RealFormer's running mean); `sequenceLength` sizes 1-D convolutions.
  SelfAttentionImpl(const ModelConfig& model, const AttentionConfig& attention, int layerIndex,
                    int sequenceLength);

  /// x: [B, T, H]. Reads and updates `context` (masks, carried residual scores, captures).
  torch::Tensor forward(const torch::Tensor& x, AttentionContext& context);

  /// Re-applies the variants' own initialisations after the model's BERT init.
  void resetVariantParameters();

  int heads() const { return m_heads; }
  int headSize() const { return m_headSize; }
  /// The learnable temperatures [3, heads] (q, k, v), or undefined when off.
  torch::Tensor temperatures() const;
  /// softmax1's learned sink logits [heads] (detached), or undefined.
  torch::Tensor sinkLogits() const;
  /// Differential attention's lambda (0-d, detached), or undefined.
  torch::Tensor differentialLambda() const;

 private:
  /// True when this layer may use the fused kernel on a pass that `ctx` allows
  /// (fusedAllowedBy): no mechanism of the layer reads or changes the probabilities.
  bool m_fusable = false;
  double m_attentionDropoutP = 0.0;
  bool fusedAllowedBy(const AttentionContext& ctx, const torch::Tensor& x) const;
  /// softmax(scores + bias) v, explicitly, with every hook point and mechanism stage.
  torch::Tensor explicitAttention(const torch::Tensor& q, const torch::Tensor& k,
                                  const torch::Tensor& v, AttentionContext& ctx);
  /// Differential attention's (p1 - lambda p2) v, explicitly, normalised per head.
  torch::Tensor differentialAttention(const torch::Tensor& q, const torch::Tensor& k,
                                      const torch::Tensor& v, AttentionContext& ctx);
  /// scores = q k^T / sqrt(d_k) plus the position interactions' bias.
  torch::Tensor rawScores(const torch::Tensor& q, const torch::Tensor& k);
  /// The mixing matrix's stages after the weights: convolution, hooks, dropout, times v.
  torch::Tensor mixValues(torch::Tensor weights, const torch::Tensor& v, AttentionContext& ctx);
  /// The same by LibTorch 2.x's fused kernel (only where fusedAllowedBy: its bias needs no
  /// gradient).
  torch::Tensor fusedAttention(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, AttentionContext& ctx);
  /// Gated attention's gate of the block input x [B, T, D], shaped to multiply the heads'
  /// context [B, heads, T, d]: [B, heads, T, 1] (head) or [B, heads, T, d] (element).
  torch::Tensor outputGate(const torch::Tensor& x, AttentionContext& ctx);
  /// The hook point "blocks.{L}.attn.<name>" of this layer (hook_points.h).
  torch::Tensor hook(AttentionContext& ctx, const char* name, torch::Tensor value) const;
  /// Norm-based attention's hook points (Kobayashi et al. 2020), made only when requested:
  /// the norms and Gram matrices of the heads' transformed values, and the matrix that mixed
  /// them.
  void hookValueNorms(const torch::Tensor& v, AttentionContext& ctx) const;
  void hookMixing(const torch::Tensor& pattern, AttentionContext& ctx) const;
  /// The additive bias of this pass: padding, or ASA's adversarial mask for this layer; in a
  /// windowed layer (model.attention_window) the band's bias added. Undefined: none.
  torch::Tensor maskBias(const AttentionContext& ctx) const;

  int m_layerIndex;
  std::string m_hookPrefix;  ///< "blocks.{L}.attn."
  int m_heads;
  int m_headSize;
  bool m_windowed = false;    ///< sliding-window layer (attention_window.h)
  RotaryPositions m_rope;     ///< model.position = rope; disabled otherwise
  ResidualScores m_residual;  ///< RealFormer: attention.residual
  BlurTarget m_blurTarget;    ///< SesameBERT: attention.blur.target
  OutputGate m_outputGate;    ///< gated attention: attention.output_gate
  torch::Tensor m_blurKernel;
  torch::nn::Linear m_qkv{nullptr};
  torch::nn::Linear m_output{nullptr};
  FastDropout m_attentionDropout{nullptr};
  PositionInteractions m_position{nullptr};
  ConvAttention1d m_conv1d{nullptr};
  ConvAttention2d m_conv2d{nullptr};
  HeadNorm m_qNorm{nullptr}, m_kNorm{nullptr};    // attention.qk_norm
  torch::nn::Linear m_gate{nullptr};              // attention.output_gate
  AttentionNormalizer m_normalizer{nullptr};      // attention.normalizer other than softmax
  DifferentialAttention m_differential{nullptr};  // attention.differential
  torch::Tensor m_tauQ, m_tauK, m_tauV;           // [heads] each when temperature is on
};
TORCH_MODULE(SelfAttention);

}  // namespace attnlab::core
