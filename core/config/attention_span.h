#pragma once

// Which keys a layer's queries see (docs/modern-encoders.md), from the configuration alone
// (no LibTorch: the app's views ask it to draw the band).

#include "core/config/run_config.h"

#include <vector>

namespace attnlab::core {

/// Sliding-window attention (Beltagy et al. 2020; ModernBERT's local layers): query i sees
/// key j only when |i - j| <= window / 2. With `globalEvery` N, layer L is global when
/// L % N == 0 (ModernBERT: window 128, N = 3: layers 0, 3, 6, ... are global).
inline bool isWindowedLayer(const ModelConfig& model, int layerIndex) {
  return model.attentionWindow > 0 && layerIndex % model.globalEvery != 0;
}

/// How many keys either side of its own position a query of `layerIndex` sees
/// (model.attention_window / 2); -1 for a global layer.
inline int bandHalfWidth(const ModelConfig& model, int layerIndex) {
  return isWindowedLayer(model, layerIndex) ? model.attentionWindow / 2 : -1;
}

/// bandHalfWidth of every layer, in order.
inline std::vector<int> bandHalfWidths(const ModelConfig& model) {
  std::vector<int> out;
  for (int l = 0; l < model.layers; ++l) out.push_back(bandHalfWidth(model, l));
  return out;
}

}  // namespace attnlab::core
