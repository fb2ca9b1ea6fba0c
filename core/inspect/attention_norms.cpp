#include "core/inspect/attention_norms.h"

#include <torch/torch.h>

namespace attnlab::core {

LayerNorms attentionNorms(const at::Tensor& mixing, const at::Tensor& valueNorms,
                          const at::Tensor& valueGram) {
  torch::NoGradGuard noGrad;
  LayerNorms out;
  out.valueNorms = valueNorms.to(torch::kFloat).contiguous();
  // A convolved alpha may hold negative weights: the norm of alpha f is |alpha| ||f||.
  out.headNorms = (mixing.to(torch::kFloat).abs() * out.valueNorms.unsqueeze(-2)).contiguous();
  // ||sum_h a_h f_h||^2 = a^T G a per (i, j): the keys first so that each key's Gram matrix
  // [heads, heads] multiplies the rows of every query at once.
  const auto a = mixing.to(torch::kDouble).permute({0, 3, 2, 1});  // [B, Tj, Ti, heads]
  const auto squared = (torch::matmul(a, valueGram.to(torch::kDouble)) * a).sum(-1);
  out.layerNorms =
      squared.clamp_min(0.0).sqrt().transpose(1, 2).to(torch::kFloat).contiguous();  // [B, Ti, Tj]
  return out;
}

}  // namespace attnlab::core
