#include "core/health/attention_spectral.h"

#include "core/model/masked_lm.h"

#include <torch/torch.h>

#include <cmath>

namespace attnlab::core {

at::Tensor headSpectralNorms(const at::Tensor& queryRows, const at::Tensor& keyRows,
                             const at::Tensor& scales, int iterations) {
  torch::NoGradGuard noGrad;
  const auto aq = queryRows.to(torch::kCPU, torch::kFloat64);  // [H, d, D]
  const auto ak = keyRows.to(torch::kCPU, torch::kFloat64);
  const auto heads = aq.size(0), width = aq.size(2);
  // A fixed start with no symmetry a weight matrix could be orthogonal to by construction.
  auto v = (torch::sin(torch::arange(1, width + 1, torch::kFloat64) * 1.7) + 1.5)
               .expand({heads, width})
               .unsqueeze(-1)
               .contiguous();  // [H, D, 1]
  v = v / v.norm(2, 1, true);
  // M = A_q^T A_k; M v = A_q^T (A_k v), M^T u = A_k^T (A_q u).
  const auto aqT = aq.transpose(1, 2), akT = ak.transpose(1, 2);
  for (int i = 0; i < iterations; ++i) {
    const auto mv = torch::bmm(aqT, torch::bmm(ak, v));
    v = torch::bmm(akT, torch::bmm(aq, mv));
    v = v / v.norm(2, 1, true).clamp_min(1e-300);
  }
  const auto sigma = torch::bmm(aqT, torch::bmm(ak, v)).norm(2, 1).squeeze(-1);  // [H]
  return sigma * scales.to(torch::kCPU, torch::kFloat64).abs();
}

double headSpectralNorm(const at::Tensor& queryRows, const at::Tensor& keyRows, double scale,
                        int iterations) {
  return headSpectralNorms(queryRows.unsqueeze(0), keyRows.unsqueeze(0),
                           torch::full({1}, scale, torch::kFloat64), iterations)
      .item<double>();
}

LayerQueryKeyFactors layerQueryKeyFactors(MaskedLanguageModelImpl& model, int layer) {
  auto attention = model.layer(layer)->attention();
  const int H = attention->heads(), d = attention->headSize();
  const auto weight = attention->named_parameters()["qkv.weight"].detach();  // [3D, D]
  const auto hidden = weight.size(1);
  auto scales = torch::full({H}, 1.0 / std::sqrt(double(d)), torch::kFloat64);
  const auto tau = attention->temperatures();  // [3, H] or undefined
  if (tau.defined()) scales = scales * (tau[0] * tau[1]).to(torch::kCPU, torch::kFloat64);
  return {weight.narrow(0, 0, hidden).view({H, d, hidden}),
          weight.narrow(0, hidden, hidden).view({H, d, hidden}), scales};
}

at::Tensor qkSpectralNorms(MaskedLanguageModelImpl& model, int iterations) {
  const int L = model.layerCount();
  const int H = model.layer(0)->attention()->heads();
  auto out = torch::zeros({L, H}, torch::kFloat64);
  for (int l = 0; l < L; ++l) {
    const auto f = layerQueryKeyFactors(model, l);
    out[l] = headSpectralNorms(f.queryRows, f.keyRows, f.scales, iterations);
  }
  return out;
}

}  // namespace attnlab::core
