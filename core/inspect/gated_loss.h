#pragma once

// The MLM loss of a batch with head gates (Michel et al. 2019, "Are Sixteen Heads Really
// Better than One?", section 4): a gate xi_h multiplies each head's output, xi = 1 is the
// model as trained, xi = 0 masks the head, and dL/dxi_h is the head's importance on that
// input. One gate per sequence and head, so a single backward pass gives every sequence's
// own gradient (a sequence's loss depends on its own gates only: evaluation mode, no
// statistics shared across the batch).

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace attnlab::core {

class MaskedLanguageModelImpl;

/// Positions of a batch replaced by <mask> and the tokens they held.
struct MaskedTargets {
  at::Tensor positions;  ///< [N] int64: flat indices into [B, T]
  at::Tensor targets;    ///< [N] int64
};

/// What gatedMlmLoss() returns. Loss in nats.
struct GatedLoss {
  double lossSum = 0;  ///< sum over the N positions of -log p(target)
  std::int64_t correct = 0;
  std::int64_t count = 0;    ///< N
  at::Tensor sequenceLoss;   ///< [B] float64: mean over each sequence's positions (0: none)
  at::Tensor sequenceCount;  ///< [B] int64: masked positions per sequence
  /// [L, B, H] float64: d sequenceLoss_b / d xi_(l,b,h) at the given gates (gradient only).
  at::Tensor gateGradient;
};

/// The MLM loss at `masked` of `ids` [B, T] (already holding <mask> there; `attentionMask`
/// [B, T] bool, true = real token) with `gates` [L, H] (undefined: every gate 1, and the
/// pass exactly the ungated one). With `gradient`, d loss / d gate per sequence: the
/// parameters take no gradient meanwhile (only the gates do), and get back their flags.
/// Throws std::invalid_argument when the shapes disagree with the model.
GatedLoss gatedMlmLoss(MaskedLanguageModelImpl& model, const at::Tensor& ids,
                       const at::Tensor& attentionMask, const MaskedTargets& masked,
                       const at::Tensor& gates, bool gradient);

}  // namespace attnlab::core
