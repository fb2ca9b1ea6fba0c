#include "core/health/attention_spectral.h"

#include "core/model/masked_lm.h"

#include <torch/torch.h>

#include <cmath>

namespace attnlab::core {

double headSpectralNorm(const at::Tensor& queryRows, const at::Tensor& keyRows, double scale,
                        int iterations) {
  torch::NoGradGuard noGrad;
  const auto aq = queryRows.to(torch::kCPU, torch::kFloat64);
  const auto ak = keyRows.to(torch::kCPU, torch::kFloat64);
  const auto width = aq.size(1);
  // A fixed start with no symmetry a weight matrix could be orthogonal to by construction.
  auto v = torch::sin(torch::arange(1, width + 1, torch::kFloat64) * 1.7) + 1.5;
  v = v / v.norm();
  // M = A_q^T A_k; M v = A_q^T (A_k v), M^T u = A_k^T (A_q u).
  for (int i = 0; i < iterations; ++i) {
    const auto mv = torch::matmul(aq.t(), torch::matmul(ak, v));
    v = torch::matmul(ak.t(), torch::matmul(aq, mv));
    const double n = v.norm().item<double>();
    if (n == 0.0) return 0.0;
    v = v / n;
  }
  const double sigma = torch::matmul(aq.t(), torch::matmul(ak, v)).norm().item<double>();
  return std::abs(scale) * sigma;
}

at::Tensor qkSpectralNorms(MaskedLanguageModelImpl& model, int iterations) {
  const int L = model.layerCount();
  auto first = model.layer(0)->attention();
  const int H = first->heads(), d = first->headSize();
  auto out = torch::zeros({L, H}, torch::kFloat64);
  for (int l = 0; l < L; ++l) {
    auto attention = model.layer(l)->attention();
    const auto weight = attention->named_parameters()["qkv.weight"].detach();  // [3D, D]
    const auto hidden = weight.size(1);
    const auto tau = attention->temperatures();  // [3, H] or undefined
    for (int h = 0; h < H; ++h) {
      double scale = 1.0 / std::sqrt(double(d));
      if (tau.defined()) scale *= tau[0][h].item<double>() * tau[1][h].item<double>();
      out[l][h] = headSpectralNorm(weight.narrow(0, h * d, d),
                                   weight.narrow(0, hidden + h * d, d), scale, iterations);
    }
  }
  return out;
}

}  // namespace attnlab::core
