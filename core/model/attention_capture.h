#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace attnlab::core {

/// What a forward pass hands back for logging and analysis, filled by the attention
/// blocks as they run, so nothing ever re-runs the model to look at its attention.
/// Tensors are detached; shapes are per layer, with the batch first.
struct AttentionCapture {
  bool wantProbabilities = false;  ///< post-softmax attention (before attention dropout)
  bool wantScores = false;  ///< pre-softmax logits (after every additive term, before the mask)
  /// What norm-based attention (Kobayashi et al. 2020) needs of every layer: the weights
  /// that really mixed the values, the norms of the heads' transformed values and their
  /// Gram matrices (core/inspect/attention_norms.h turns them into norms).
  bool wantNorms = false;
  bool wantHiddenStates = false;  ///< every layer's output (the logit lens)
  /// Every layer's queries and keys as the scores multiply them (after Dufter et al.'s
  /// temperatures; before 1/sqrt(d), position interactions and RealFormer's residual):
  /// the query-key map (AttentionViz).
  bool wantQueryKeys = false;
  std::vector<at::Tensor> probabilities;  ///< [B, heads, T, T] per layer when requested
  std::vector<at::Tensor> scores;         ///< [B, heads, T, T] per layer when requested
  /// [B, heads, T, T] per layer (wantNorms): alpha, the matrix that multiplied the values
  /// and whose product reached the output projection. The probabilities, except after
  /// Dufter et al.'s convolution (the convolved matrix) and SesameBERT's context blur (the
  /// blur applied along the query axis, which is what blurring the context does to it).
  std::vector<at::Tensor> mixing;
  /// [B, heads, T] per layer (wantNorms): ||f_h(x_j)||, f_h(x) = (x W_V,h + b_V,h) W_O,h with
  /// the values as the pass used them (temperature tau_v, SesameBERT's value blur).
  std::vector<at::Tensor> valueNorms;
  /// [B, T, heads, heads] per layer (wantNorms): <f_h(x_j), f_g(x_j)>, from which the norm of
  /// any weighted sum over heads follows without the [T, T, hidden] vectors (products in
  /// float32, the model's precision; held as float64).
  std::vector<at::Tensor> valueGram;
  /// [B, T, hidden] per layer (wantHiddenStates): the layer's output, before SesameBERT's
  /// combination over layers and a Pre-LN model's final LayerNorm.
  std::vector<at::Tensor> hiddenStates;
  std::vector<at::Tensor> queries;  ///< [B, heads, T, d] per layer (wantQueryKeys)
  std::vector<at::Tensor> keys;     ///< [B, heads, T, d] per layer (wantQueryKeys)

  /// True when the attention blocks must run the explicit product to fill this capture.
  bool wantsAnything() const { return wantProbabilities || wantScores || wantNorms; }
  void clear() {
    probabilities.clear();
    scores.clear();
    mixing.clear();
    valueNorms.clear();
    valueGram.clear();
    hiddenStates.clear();
    queries.clear();
    keys.clear();
  }
};

}  // namespace attnlab::core
