#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace attnlab::core {

/// Scales gradients so their global L2 norm is at most `maxNorm` (no-op when 0) and
/// returns the norm before clipping as a 0-d tensor on the device (float32, or float64 when a
/// gradient is float64): unlike torch::nn::utils::clip_grad_norm_ it does not synchronise
/// with the host.
at::Tensor clipGradNorm(const std::vector<at::Tensor>& params, double maxNorm);

}  // namespace attnlab::core
