#pragma once

#include "core/config/config_choices.h"

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace attnlab::core {

/// Direct position interactions: a trainable additive bias on the attention logits,
/// added after the 1/sqrt(d) scaling and before the softmax, replacing position
/// embeddings.
///   absolute: one max_positions x max_positions matrix P_h per head; bias[h,i,j] = P_h[i,j]
///   relative, directional (paper): a vector r_h of 2*max_positions-1 entries per head;
///            bias[h,i,j] = r_h[i - j + max_positions - 1]
///   relative, symmetric (official code, which builds a symmetric Toeplitz matrix):
///            r_h has max_positions entries; bias[h,i,j] = r_h[|i - j|]
///   both: the sum of the two.
/// `mode` is Absolute, Relative or Both (a layer without interactions has no module).
/// Parameters "absolute" [heads, max, max] and "relative" [heads, 2*max-1 or max], with the
/// official code's glorot-normal initialisation (std = sqrt(2 / (fan_in + fan_out))).
class PositionInteractionsImpl : public torch::nn::Module {
 public:
  PositionInteractionsImpl(int heads, int maxPositions, PositionMode mode, bool symmetricRelative);
  /// The bias for sequences of `length` tokens: [heads, length, length].
  torch::Tensor forward(std::int64_t length);
  /// Re-applies the glorot-normal initialisation (the model's BERT init must not clobber it).
  void resetParameters();

 private:
  int m_heads;
  int m_maxPositions;
  PositionMode m_mode;
  bool m_symmetric;
  torch::Tensor m_absolute;  // undefined unless Absolute/Both
  torch::Tensor m_relative;  // undefined unless Relative/Both
};
TORCH_MODULE(PositionInteractions);

}  // namespace attnlab::core
