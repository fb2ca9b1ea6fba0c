#pragma once

// The spectral norm of the query-key form under rotary positions. With RoPE the score of a
// query at i and a key at j = i + r is x_i^T A_q^T R(r) A_k x_j / sqrt(d): R(r) turns the
// pair of dimensions (m, m + d/2) by r * theta^(-2m/d) (core/model/rotary_positions.h), so
// the form, and the largest logit it allows, depends on the offset r. attention_spectral.h's
// number is the form at r = 0; this is its largest value over the offsets a layer's queries
// reach (within the band of a sliding-window layer), and the offset where it is reached.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>

namespace attnlab::core {

class MaskedLanguageModelImpl;
struct ModelConfig;

/// Per head: the largest sigma(A_q^T R(r) A_k) * scale over -maxOffset <= r <= maxOffset
/// ([H] float64) and that r, key position minus query position ([H] int64; the first in r's
/// order on a tie). `queryRows`, `keyRows` [H, d, D] and `scales` [H] as headSpectralNorms
/// takes them; `theta` is the layer's base. Exact (singular values of d x d matrices: A_q^T
/// and A_k^T are reduced to their triangular QR factors, which keep every singular value).
struct RotarySpectralNorms {
  at::Tensor norm;
  at::Tensor offset;
};
/// `afterHead(h)`, when set, is called as each head is done. Memory stays bounded: the
/// offsets are taken 256 at a time.
RotarySpectralNorms rotaryHeadSpectralNorms(
    const at::Tensor& queryRows, const at::Tensor& keyRows, const at::Tensor& scales, double theta,
    std::int64_t maxOffset, const std::function<void(std::int64_t)>& afterHead = {});

/// The largest |offset| between a query and a key of `layer` in sequences of `length` real
/// tokens: length - 1, or the band's half-width in a sliding-window layer when smaller.
std::int64_t rotaryReach(const ModelConfig& config, int layer, std::int64_t length);
/// The RoPE base of `layer`: model.rope_theta_local in a sliding-window layer, else rope_theta.
double rotaryTheta(const ModelConfig& config, int layer);

/// [L, H] for a model with model.position = "rope": each layer at its own base
/// (rope_theta_local in a windowed layer), over the offsets below `length` positions and
/// within the layer's band. `afterHead(l, h)`, when set, is called as each head is done (a
/// long sequence makes thousands of SVDs per head: progress and cancel go there).
RotarySpectralNorms rotaryQkSpectralNorms(MaskedLanguageModelImpl& model, const ModelConfig& config,
                                          std::int64_t length,
                                          const std::function<void(int, int)>& afterHead = {});

}  // namespace attnlab::core
