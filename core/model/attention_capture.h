#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace attnlab::core {

/// What a forward pass hands back for logging and analysis, filled by the attention
/// blocks as they run, so nothing ever re-runs the model to look at its attention.
/// Tensors are detached; shapes are [B, heads, T, T] per layer.
struct AttentionCapture {
  bool wantProbabilities = false;  ///< post-softmax attention (before attention dropout)
  bool wantScores = false;  ///< pre-softmax logits (after every additive term, before the mask)
  std::vector<at::Tensor> probabilities;  ///< one per layer when requested
  std::vector<at::Tensor> scores;         ///< one per layer when requested

  bool wantsAnything() const { return wantProbabilities || wantScores; }
  void clear() {
    probabilities.clear();
    scores.clear();
  }
};

}  // namespace attnlab::core
