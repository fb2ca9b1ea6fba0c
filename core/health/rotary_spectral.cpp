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

namespace {

/// Offsets per batch of SVDs: [256, d, d] float64 temporaries (8 MB at d = 64), whatever the
/// sequence length.
constexpr std::int64_t kOffsetChunk = 256;

/// The largest sigma(T_q R(r) T_k^T) over r in [first, first + count) for one head, and r
/// (the first on a tie). `inverse` [d/2]: theta^(-2m/d).
std::pair<double, std::int64_t> largestOverOffsets(const at::Tensor& tq, const at::Tensor& tkT,
                                                   const at::Tensor& inverse, std::int64_t first,
                                                   std::int64_t count) {
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  const auto offsets = torch::arange(first, first + count, f64);                  // [O]
  const auto angles = torch::outer(offsets, inverse).repeat({1, 2});              // [O, d]
  const auto cos = angles.cos().unsqueeze(-1), sin = angles.sin().unsqueeze(-1);  // [O, d, 1]
  // R(r) T_k^T: each column (a vector of the head's d dimensions) turned,
  // x cos + rotate_half(x) sin, with rotate_half acting along the rows.
  const auto turned = tkT * cos + rotateHalf(tkT.transpose(0, 1)).transpose(0, 1) * sin;
  const auto sigma = torch::linalg_svdvals(torch::matmul(tq, turned)).select(-1, 0);  // [O]
  const auto best = sigma.argmax();
  return {sigma[best].item<double>(), first + best.item<std::int64_t>()};
}

}  // namespace

RotarySpectralNorms rotaryHeadSpectralNorms(const at::Tensor& queryRows, const at::Tensor& keyRows,
                                            const at::Tensor& scales, double theta,
                                            std::int64_t maxOffset,
                                            const std::function<void(std::int64_t)>& afterHead) {
  torch::NoGradGuard noGrad;
  const auto tq = triangularFactor(queryRows);                // [H, d, d]: T_q
  const auto tk = triangularFactor(keyRows).transpose(1, 2);  // [H, d, d]: T_k^T
  const auto heads = tq.size(0), d = tq.size(1);
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  // The angle of offset r in pair m: r * theta^(-2m/d), for both halves of the pair.
  const auto inverse =
      1.0 / torch::pow(torch::scalar_tensor(theta, f64), torch::arange(0, d, 2, f64) / double(d));
  auto norm = torch::empty({heads}, f64);
  auto at = torch::empty({heads}, torch::TensorOptions().dtype(torch::kInt64));
  for (std::int64_t h = 0; h < heads; ++h) {
    double best = -1.0;
    std::int64_t where = 0;
    for (std::int64_t first = -maxOffset; first <= maxOffset; first += kOffsetChunk) {
      const auto count = std::min(kOffsetChunk, maxOffset + 1 - first);
      const auto [value, offset] = largestOverOffsets(tq[h], tk[h], inverse, first, count);
      if (value > best) best = value, where = offset;  // strictly: the first r keeps a tie
    }
    norm[h] = best * std::abs(scales[h].item<double>());
    at[h] = where;
    if (afterHead) afterHead(h);
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
                                          const std::function<void(int, int)>& afterHead) {
  const int L = model.layerCount();
  const int H = model.layer(0)->attention()->heads();
  RotarySpectralNorms out{torch::zeros({L, H}, torch::kFloat64),
                          torch::zeros({L, H}, torch::TensorOptions().dtype(torch::kInt64))};
  for (int l = 0; l < L; ++l) {
    const auto f = layerQueryKeyFactors(model, l);
    const auto layer =
        rotaryHeadSpectralNorms(f.queryRows, f.keyRows, f.scales, rotaryTheta(config, l),
                                rotaryReach(config, l, length), [&](std::int64_t h) {
                                  if (afterHead) afterHead(l, static_cast<int>(h));
                                });
    out.norm[l] = layer.norm;
    out.offset[l] = layer.offset;
  }
  return out;
}

}  // namespace attnlab::core
