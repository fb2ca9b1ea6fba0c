#include "core/train/grad_clip.h"

#include <torch/torch.h>

namespace attnlab::core {

at::Tensor clipGradNorm(const std::vector<at::Tensor>& params, double maxNorm) {
  torch::NoGradGuard noGrad;
  std::vector<at::Tensor> norms;
  norms.reserve(params.size());
  for (const auto& p : params) {
    if (p.grad().defined()) norms.push_back(p.grad().norm().to(torch::kFloat));
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
