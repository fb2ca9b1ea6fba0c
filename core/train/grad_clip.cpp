#include "core/train/grad_clip.h"

#include <torch/torch.h>

namespace attnlab::core {

at::Tensor clipGradNorm(const std::vector<at::Tensor>& params, double maxNorm) {
  torch::NoGradGuard noGrad;
  // The norm in float32, or in float64 when a gradient is float64, so a model run in double
  // keeps double precision through the clipping (float32 runs are unchanged).
  auto accumulate = torch::kFloat;
  for (const auto& p : params) {
    if (p.grad().defined() && p.grad().scalar_type() == torch::kDouble) accumulate = torch::kDouble;
  }
  std::vector<at::Tensor> norms;
  norms.reserve(params.size());
  for (const auto& p : params) {
    if (p.grad().defined()) norms.push_back(p.grad().norm().to(accumulate));
  }
  if (norms.empty()) return torch::zeros({});
  auto total = torch::stack(norms).norm();
  if (maxNorm > 0.0) {
    auto coef = torch::clamp_max(maxNorm / (total + 1e-6), 1.0);
    for (const auto& p : params) {
      if (p.grad().defined()) p.grad().mul_(coef.to(p.grad().dtype()));
    }
  }
  return total;
}

}  // namespace attnlab::core
