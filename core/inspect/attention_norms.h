#pragma once

// Norm-based attention (Kobayashi et al. 2020, "Attention is Not Only a Weight: Analyzing
// Transformers with Vector Norms", EMNLP, section 3): head h's output at position i is
//     sum_j alpha_ij,h f_h(x_j),  f_h(x) = (x W_V,h + b_V,h) W_O,h,
// so the contribution of key j is the vector alpha_ij,h f_h(x_j), whose norm can be small
// where the weight is large. From the hook points "blocks.{L}.attn.mixing|value_norms|value_gram"
// of a pass.

#include <ATen/core/Tensor.h>

namespace attnlab::core {

/// The norms of one layer, batch first. float32.
struct LayerNorms {
  at::Tensor valueNorms;  ///< [B, heads, T]: ||f_h(x_j)||
  at::Tensor headNorms;   ///< [B, heads, T, T]: ||alpha_ij,h f_h(x_j)|| = |alpha_ij,h| ||f_h(x_j)||
  at::Tensor layerNorms;  ///< [B, T, T]: ||sum_h alpha_ij,h f_h(x_j)||
};

/// `mixing` [B, heads, T, T], `valueNorms` [B, heads, T], `valueGram` [B, T, heads, heads]
/// (float64), as those hook points hold them for one layer. The layer-level norm is
/// sqrt(a^T G_j a) with a = alpha_ij,. over heads and G_j the Gram matrix of the heads'
/// vectors at j, the form accumulated in float64.
LayerNorms attentionNorms(const at::Tensor& mixing, const at::Tensor& valueNorms,
                          const at::Tensor& valueGram);

}  // namespace attnlab::core
