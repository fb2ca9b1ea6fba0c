#include "core/health/rotary_spectral.h"

#include "core/config/attention_span.h"
#include "core/health/attention_spectral.h"
#include "core/model/masked_lm.h"
#include "core/model/rotary_positions.h"

#include <torch/torch.h>

#include <algorithm>

namespace attnlab::core {

namespace {

/// T of the reduced QR factorisation A^T = Q T (A [H, d, D], D >= d). A_q^T R A_k =
/// Q_q (T_q R T_k^T) Q_k^T, and Q_q, Q_k have orthonormal columns, so the d x d middle has
/// every singular value of the D x D form.
at::Tensor triangularFactor(const at::Tensor& rows) {
  return std::get<1>(torch::linalg_qr(rows.to(torch::kCPU, torch::kFloat64).transpose(1, 2)));
}

}  // namespace

RotarySpectralNorms rotaryHeadSpectralNorms(const at::Tensor& queryRows, const at::Tensor& keyRows,
                                            const at::Tensor& scales, double theta,
                                            std::int64_t maxOffset) {
  torch::NoGradGuard noGrad;
  const auto tq = triangularFactor(queryRows);                // [H, d, d]: T_q
  const auto tk = triangularFactor(keyRows).transpose(1, 2);  // [H, d, d]: T_k^T
  const auto heads = tq.size(0), d = tq.size(1);
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  const auto offsets = torch::arange(-maxOffset, maxOffset + 1, f64);  // [O]
  // The angle of offset r in pair m: r * theta^(-2m/d), for both halves of the pair.
  const auto inverse =
      1.0 / torch::pow(torch::scalar_tensor(theta, f64), torch::arange(0, d, 2, f64) / double(d));
  const auto angles = torch::outer(offsets, inverse).repeat({1, 2});              // [O, d]
  const auto cos = angles.cos().unsqueeze(-1), sin = angles.sin().unsqueeze(-1);  // [O, d, 1]
  auto norm = torch::empty({heads}, f64);
  auto at = torch::empty({heads}, torch::TensorOptions().dtype(torch::kInt64));
  for (std::int64_t h = 0; h < heads; ++h) {  // one head at a time: [O, d, d] at most
    // R(r) T_k^T: each column (a vector of the head's d dimensions) turned,
    // x cos + rotate_half(x) sin, with rotate_half acting along the rows.
    const auto turned =
        tk[h] * cos + rotateHalf(tk[h].transpose(0, 1)).transpose(0, 1) * sin;  // [O, d, d]
    const auto sigma = torch::linalg_svdvals(torch::matmul(tq[h], turned)).select(-1, 0);  // [O]
    const auto best = sigma.argmax();
    norm[h] = sigma[best] * scales[h].to(torch::kFloat64).abs();
    at[h] = best.item<std::int64_t>() - maxOffset;
  }
  return {norm, at};
}

std::int64_t rotaryReach(const ModelConfig& config, int layer, std::int64_t length) {
  const std::int64_t reach = std::max<std::int64_t>(length - 1, 0);
  const int band = bandHalfWidth(config, layer);
  return band >= 0 ? std::min<std::int64_t>(reach, band) : reach;
}

double rotaryTheta(const ModelConfig& config, int layer) {
  return isWindowedLayer(config, layer) ? config.ropeThetaLocal : config.ropeTheta;
}

RotarySpectralNorms rotaryQkSpectralNorms(MaskedLanguageModelImpl& model, const ModelConfig& config,
                                          std::int64_t length,
                                          const std::function<void(int)>& afterLayer) {
  const int L = model.layerCount();
  const int H = model.layer(0)->attention()->heads();
  RotarySpectralNorms out{torch::zeros({L, H}, torch::kFloat64),
                          torch::zeros({L, H}, torch::TensorOptions().dtype(torch::kInt64))};
  for (int l = 0; l < L; ++l) {
    const auto f = layerQueryKeyFactors(model, l);
    const auto layer = rotaryHeadSpectralNorms(
        f.queryRows, f.keyRows, f.scales, rotaryTheta(config, l), rotaryReach(config, l, length));
    out.norm[l] = layer.norm;
    out.offset[l] = layer.offset;
    if (afterLayer) afterLayer(l);
  }
  return out;
}

}  // namespace attnlab::core
