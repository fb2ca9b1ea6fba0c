#pragma once

#include <ATen/core/Tensor.h>

namespace attnlab::core {

/// SesameBERT's fixed Gaussian kernel: exp(-x^2 / 2 sigma^2) for x = -(k-1)/2 .. (k-1)/2,
/// normalised to sum 1, float64 [k]. k = 3, sigma = 0.3 gives about [0.0038, 0.9923, 0.0038].
at::Tensor gaussianKernel(int window, double sigma);

/// Blurs x [B, T, C] along the sequence axis with `kernel` [k] (k odd), the same kernel for
/// every channel (depthwise), with replicate padding (the edge token repeated), as the
/// official code's SYMMETRIC pad + valid conv:
///   out[b,t,c] = sum_m kernel[m] * x[b, clamp(t + m - (k-1)/2, 0, T-1), c]
/// Differentiable in x; the kernel is a constant.
at::Tensor blurAlongSequence(const at::Tensor& x, const at::Tensor& kernel);

}  // namespace attnlab::core
