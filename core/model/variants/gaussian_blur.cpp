#include "core/model/variants/gaussian_blur.h"

#include <torch/torch.h>

#include <cmath>
#include <vector>

namespace attnlab::core {

at::Tensor gaussianKernel(int window, double sigma) {
  TORCH_CHECK(window >= 1 && window % 2 == 1, "gaussianKernel: window must be odd, got ", window);
  TORCH_CHECK(sigma > 0.0, "gaussianKernel: sigma must be positive, got ", sigma);
  // Kept in double: a float64 model blurs with the exact weights, and a float32 one rounds
  // each weight once where blurAlongSequence multiplies (as a float32 buffer would).
  std::vector<double> w(window);
  const int half = (window - 1) / 2;
  double total = 0.0;
  for (int m = 0; m < window; ++m) {
    const double x = m - half;
    w[m] = std::exp(-x * x / (2.0 * sigma * sigma));
    total += w[m];
  }
  auto kernel = torch::empty({window}, torch::kFloat64);
  for (int m = 0; m < window; ++m) kernel[m] = w[m] / total;
  return kernel;
}

at::Tensor blurAlongSequence(const at::Tensor& x, const at::Tensor& kernel) {
  TORCH_CHECK(x.dim() == 3, "blurAlongSequence expects x [B, T, C], got ", x.sizes());
  TORCH_CHECK(kernel.dim() == 1 && kernel.size(0) % 2 == 1,
              "blurAlongSequence expects an odd 1-D kernel, got ", kernel.sizes());
  const auto length = x.size(1);
  TORCH_CHECK(length >= 1, "blurAlongSequence: empty sequence");
  const auto window = kernel.size(0);
  const auto half = (window - 1) / 2;
  // The kernel is a constant of a few entries: read it once as scalars, so the blur is k
  // fused multiply-adds over shifted views (no conv setup, no kernel tensor in the graph).
  const auto weights = kernel.detach().to(torch::kCPU, torch::kDouble).contiguous();
  const double* w = weights.data_ptr<double>();
  // Replicate padding: the edge tokens repeated `half` times on each side (an expand, so
  // it also covers sequences shorter than the window).
  auto padded = x;
  if (half > 0) {
    auto first = x.slice(1, 0, 1).expand({x.size(0), half, x.size(2)});
    auto last = x.slice(1, length - 1, length).expand({x.size(0), half, x.size(2)});
    padded = torch::cat({first, x, last}, 1);
  }
  auto out = padded.slice(1, 0, length) * w[0];
  for (std::int64_t m = 1; m < window; ++m) {
    out = out.add(padded.slice(1, m, m + length), w[m]);
  }
  return out;
}

}  // namespace attnlab::core
