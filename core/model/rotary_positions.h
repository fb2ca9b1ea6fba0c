#pragma once

#include <ATen/core/Tensor.h>

#include <utility>

namespace attnlab::core {

/// Rotary position embeddings (Su et al. 2021, RoFormer), in the layout of GPT-NeoX and of
/// transformers' ModernBERT: dimension i of a head is paired with i + d/2, and the pair at
/// position t is turned by the angle t * theta^(-2i/d):
///   x' = x * cos + rotate_half(x) * sin,  rotate_half([x1, x2]) = [-x2, x1].
/// The angles are computed in float32 (as transformers does; float64 for a float64 model), so
/// a float32 model matches it to rounding.
class RotaryPositions {
 public:
  RotaryPositions() = default;
  RotaryPositions(int headSize, double theta);

  bool enabled() const { return m_headSize > 0; }
  /// q, k: [B, heads, T, d], positions 0..T-1. Returns the turned pair. `cos` and `sin`
  /// ([T, d], q's type) are made here when undefined or of another length or type, else
  /// reused: the layers of one pass that share a base share them (AttentionContext).
  std::pair<at::Tensor, at::Tensor> apply(const at::Tensor& q, const at::Tensor& k, at::Tensor& cos,
                                          at::Tensor& sin) const;
  /// The same, making the angles for this call alone.
  std::pair<at::Tensor, at::Tensor> apply(const at::Tensor& q, const at::Tensor& k) const;

 private:
  int m_headSize = 0;
  double m_theta = 10000.0;
};

/// [-x2, x1] for x = [x1, x2] split in halves along the last dimension.
at::Tensor rotateHalf(const at::Tensor& x);

}  // namespace attnlab::core
