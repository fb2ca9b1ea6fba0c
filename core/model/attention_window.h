#pragma once

#include "core/config/attention_span.h"

#include <ATen/core/Tensor.h>

namespace attnlab::core {

/// The additive bias [1, 1, T, T] of a windowed layer: 0 inside the band, kMaskedLogit
/// outside, so the weights there are exactly 0 after the softmax (exp underflows), not small.
at::Tensor windowBias(std::int64_t length, int window, at::ScalarType dtype, at::Device device);

}  // namespace attnlab::core
