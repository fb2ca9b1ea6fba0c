#include "core/inspect/attention_norms.h"

#include "core/runtime/simd_clones.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>

namespace attnlab::core {

namespace {

/// One query row of ||sum_h a_h f_h||^2 over every key j, as the symmetric quadratic form
///     sum_h G_hh a_h^2 + 2 sum_{h<h'} G_hh' a_h a_h'
/// with a_h = alpha_ij,h and G the Gram matrix at key j: the pairs of heads in turn, the keys
/// innermost (contiguous in both `mixing` and `pairs`), so the loop vectorises over j.
/// `pairs` [P, T] holds G_hh' (times 2 off the diagonal) for the P = H(H+1)/2 pairs in the
/// order of `first` and `second`. Accumulated in float64, where the form may cancel.
ATTNLAB_HOT void squaredRow(const float* mixing, const double* pairs, const std::int64_t* first,
                            const std::int64_t* second, std::int64_t pairCount, std::int64_t length,
                            std::int64_t query, double* out) {
  for (std::int64_t j = 0; j < length; ++j) out[j] = 0.0;
  for (std::int64_t p = 0; p < pairCount; ++p) {
    const float* a = mixing + (first[p] * length + query) * length;
    const float* b = mixing + (second[p] * length + query) * length;
    const double* g = pairs + p * length;
#pragma omp simd
    for (std::int64_t j = 0; j < length; ++j)
      out[j] += g[j] * static_cast<double>(a[j]) * static_cast<double>(b[j]);
  }
}

/// ||sum_h alpha_ij,h f_h(x_j)|| [T, T] of one sequence: `mixing` [H, T, T] float32, `gram`
/// [T, H, H] float64.
at::Tensor layerNormsOf(const at::Tensor& mixing, const at::Tensor& gram) {
  const auto heads = mixing.size(0), length = mixing.size(1);
  const auto pairIndex = torch::triu_indices(heads, heads, 0, torch::kLong);  // [2, P]
  const auto first = pairIndex[0].contiguous(), second = pairIndex[1].contiguous();
  const auto factor = torch::where(first.eq(second), 1.0, 2.0).to(torch::kDouble);
  const auto pairs =
      (gram.index({torch::indexing::Slice(), first, second}) * factor).t().contiguous();  // [P, T]
  const auto a = mixing.to(torch::kFloat).contiguous();
  auto out = torch::empty({length, length}, torch::kFloat);
  const float* as = a.data_ptr<float>();
  const double* gs = pairs.data_ptr<double>();
  const std::int64_t *h1 = first.data_ptr<std::int64_t>(), *h2 = second.data_ptr<std::int64_t>();
  float* os = out.data_ptr<float>();
  const auto pairCount = first.size(0);
  at::parallel_for(0, length, 16, [&](std::int64_t begin, std::int64_t end) {
    std::vector<double> row(static_cast<std::size_t>(length));
    for (std::int64_t i = begin; i < end; ++i) {
      squaredRow(as, gs, h1, h2, pairCount, length, i, row.data());
      // Rounding may take a vanishing norm's square just below 0.
      for (std::int64_t j = 0; j < length; ++j)
        os[i * length + j] = static_cast<float>(std::sqrt(std::max(row[j], 0.0)));
    }
  });
  return out;
}

}  // namespace

LayerNorms attentionNorms(const at::Tensor& mixing, const at::Tensor& valueNorms,
                          const at::Tensor& valueGram) {
  torch::NoGradGuard noGrad;
  LayerNorms out;
  out.valueNorms = valueNorms.to(torch::kFloat).contiguous();
  // A convolved alpha may hold negative weights: the norm of alpha f is |alpha| ||f||.
  out.headNorms = (mixing.to(torch::kFloat).abs() * out.valueNorms.unsqueeze(-2)).contiguous();
  const auto gram = valueGram.to(torch::kDouble);
  std::vector<at::Tensor> layer;
  for (std::int64_t b = 0; b < mixing.size(0); ++b)
    layer.push_back(layerNormsOf(mixing[b], gram[b]));
  out.layerNorms = torch::stack(layer).contiguous();  // [B, Ti, Tj]
  return out;
}

}  // namespace attnlab::core
