#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>

namespace attnlab::core {

/// Splits the fused projection [B*T, 3 * heads * d] into q, k and v, each a [B, heads, T, d]
/// view of it (no copy). Its backward writes the three gradients straight into one
/// [B*T, 3 * heads * d] buffer, one strided copy each, where autograd through view,
/// permute and unbind would stack them ([3, B, heads, T, d]) and then copy the stack into the
/// projection's layout: on a GPU those two passes took 0.5 ms per BERT-base layer, a
/// twelfth of the step's element-wise time (docs/performance.md, "Where the GPU time goes").
std::array<at::Tensor, 3> splitQkv(const at::Tensor& projected, std::int64_t batch,
                                   std::int64_t length, std::int64_t heads);

}  // namespace attnlab::core
