#pragma once

// Dufter et al.'s convolved attention written as explicit loops in double, the independent
// reference the engine's ConvAttention1d/2d modules and the attention block are checked
// against. a: attention [B, H, T, T]; the weights and biases are the module's own.

#include <torch/torch.h>

#include <algorithm>
#include <cstdint>

namespace attnlab::tests {

// 2-D convolved attention, as a loop: per head one 3x3 filter, zero padding, bias, ReLU.
inline torch::Tensor conv2dLoop(const torch::Tensor& a, const torch::Tensor& w,
                                const torch::Tensor& bias) {
  const auto B = a.size(0), Hh = a.size(1), T = a.size(2);
  auto ad = a.to(torch::kFloat64).contiguous();
  auto aa = ad.accessor<double, 4>();
  auto wa = w.accessor<double, 4>();
  auto ba = bias.accessor<double, 1>();
  auto out = torch::zeros_like(ad);
  auto oa = out.accessor<double, 4>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hh; ++h)
      for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j) {
          double s = ba[h];
          for (int di = -1; di <= 1; ++di)
            for (int dj = -1; dj <= 1; ++dj) {
              const int64_t ii = i + di, jj = j + dj;
              if (ii < 0 || ii >= T || jj < 0 || jj >= T) continue;
              s += wa[h][0][di + 1][dj + 1] * aa[b][h][ii][jj];
            }
          oa[b][h][i][j] = std::max(0.0, s);
        }
  return out;
}

// 1-D convolved attention, as a loop: along the query axis, keys as input channels, T filters
// per head of width 3, zero padding, bias, ReLU. weight [H*T, T, 3], bias [H*T].
inline torch::Tensor conv1dLoop(const torch::Tensor& a, const torch::Tensor& w,
                                const torch::Tensor& bias) {
  const auto B = a.size(0), Hh = a.size(1), T = a.size(2);
  auto ad = a.to(torch::kFloat64).contiguous();
  auto aa = ad.accessor<double, 4>();
  auto wa = w.accessor<double, 3>();
  auto ba = bias.accessor<double, 1>();
  auto out = torch::zeros_like(ad);
  auto oa = out.accessor<double, 4>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hh; ++h)
      for (int64_t i = 0; i < T; ++i)
        for (int64_t f = 0; f < T; ++f) {
          double s = ba[h * T + f];
          for (int k = -1; k <= 1; ++k) {
            const int64_t ii = i + k;
            if (ii < 0 || ii >= T) continue;
            for (int64_t j = 0; j < T; ++j) s += wa[h * T + f][j][k + 1] * aa[b][h][ii][j];
          }
          oa[b][h][i][f] = std::max(0.0, s);
        }
  return out;
}

}  // namespace attnlab::tests
