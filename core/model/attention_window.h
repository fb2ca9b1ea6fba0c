#pragma once

#include <ATen/core/Tensor.h>

namespace attnlab::core {

struct ModelConfig;

/// Sliding-window attention (Beltagy et al. 2020; ModernBERT's local layers): query i sees
/// key j only when |i - j| <= window / 2. With `globalEvery` N, layer L is global when
/// L % N == 0 (ModernBERT: window 128, N = 3: layers 0, 3, 6, ... are global).
bool isWindowedLayer(const ModelConfig& model, int layerIndex);

/// The additive bias [1, 1, T, T] of a windowed layer: 0 inside the band, kMaskedLogit
/// outside, so the weights there are exactly 0 after the softmax (exp underflows), not small.
at::Tensor windowBias(std::int64_t length, int window, at::ScalarType dtype, at::Device device);

}  // namespace attnlab::core
