#pragma once

#include "core/model/hook_points.h"

#include <ATen/core/Tensor.h>

#include <vector>

namespace attnlab::core {

/// State of one forward pass that the attention blocks share as it runs through the
/// layers: the masks they add, what the variants carry from layer to layer, and what the
/// objectives and logging collect. One per forward pass; never stored between passes.
struct AttentionContext {
  /// [B, 1, 1, T]: 0 for real keys, -10000 for padding; undefined for a batch without
  /// padding (ForwardOptions::padding), where it would add zeros.
  at::Tensor paddingBias;
  /// ASA's adversarial pass: per layer [B, 1, T, T] biases that *replace* the padding bias
  /// (they mask padding keys themselves). Empty in a clean pass.
  std::vector<at::Tensor> adversarialBiases;
  /// Sliding-window attention (model.attention_window): [1, 1, T, T], 0 inside the band and
  /// -10000 outside, added by the windowed layers only; undefined without a window.
  at::Tensor windowBias;
  /// paddingBias + windowBias, made once per pass for the windowed layers ([B or 1, 1, T, T]).
  at::Tensor windowedPaddingBias;
  /// Rotary positions: the [T, d] cos and sin of the global layers' base ([0]) and of the
  /// windowed layers' ([1]), made by the first layer that needs them (rotary_positions.h).
  at::Tensor rotaryCos[2], rotarySin[2];
  /// RealFormer: the running sum of the scaled raw scores, unmasked, carried to the next
  /// layer (undefined before layer 0).
  at::Tensor residualScores;
  /// Attention guidance: keep each layer's probabilities *with* their graph so the
  /// guidance loss can train them (before attention dropout).
  bool keepProbabilitiesForGuidance = false;
  std::vector<at::Tensor> guidanceProbabilities;
  /// Gated attention: each layer's mean gate per head [heads] (detached), in layer order.
  std::vector<at::Tensor> gateMeans;
  /// The named hook points' request and cache (core/model/hook_points.h); null: no hooks,
  /// and no hook point costs more than a pointer test.
  HookSession* hooks = nullptr;
};

}  // namespace attnlab::core
