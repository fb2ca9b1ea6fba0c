#pragma once

// Zhai et al. (ICML 2023): attention entropy's lower bound falls as the spectral norm
// sigma(W_Q W_K^T) grows. Per head, W_Q,h W_K,h^T / sqrt(d) (the bilinear form the scores
// apply to a layer's input, [D, D] of rank d), times Dufter et al.'s tau_q tau_k where the
// model learns temperatures; biases and additive terms are not part of it.

#include <ATen/core/Tensor.h>

namespace attnlab::core {

class MaskedLanguageModelImpl;

/// Power iterations health runs: a fixed count, so a logged value does not depend on a
/// convergence test; checked against numpy's SVD in tests/core/test_attention_health.cpp.
inline constexpr int kSpectralIterations = 50;

/// sigma(A_q^T A_k) / sqrt(d) scaled by `scale` for one head: `queryRows`, `keyRows` [d, D]
/// are the head's rows of the projection weights ([out, in] as Linear stores them). M is
/// never formed: v <- M^T M v through the [d, D] factors, from a fixed start vector.
double headSpectralNorm(const at::Tensor& queryRows, const at::Tensor& keyRows, double scale,
                        int iterations = kSpectralIterations);
/// The same for every head of a layer at once: `queryRows`, `keyRows` [H, d, D], `scales`
/// [H]; returns [H] float64 (batched products: a handful of calls per iteration, not per head).
at::Tensor headSpectralNorms(const at::Tensor& queryRows, const at::Tensor& keyRows,
                             const at::Tensor& scales, int iterations = kSpectralIterations);

/// One layer's heads as headSpectralNorms takes them: the rows of W_Q and W_K [H, d, D]
/// (detached) and 1/sqrt(d) times the learned tau_q tau_k where the model has them [H].
struct LayerQueryKeyFactors {
  at::Tensor queryRows, keyRows, scales;
};
LayerQueryKeyFactors layerQueryKeyFactors(MaskedLanguageModelImpl& model, int layer);

/// [L, H] float64: every head of the model.
at::Tensor qkSpectralNorms(MaskedLanguageModelImpl& model, int iterations = kSpectralIterations);

}  // namespace attnlab::core
