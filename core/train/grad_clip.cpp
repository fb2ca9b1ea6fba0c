#include "core/train/grad_clip.h"

#include "core/runtime/torch_compat.h"

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
  std::vector<at::Tensor> grads;
  grads.reserve(params.size());
  for (const auto& p : params) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  if (grads.empty()) return torch::zeros({});
  // Multi-tensor kernels: on a GPU a norm and a multiply per parameter would be ~400
  // launches for BERT-base, each too small to keep the card busy.
  std::vector<at::Tensor> norms = at::_foreach_norm(grads);
  for (auto& n : norms) n = n.to(accumulate);
  auto total = torch::stack(norms).norm();
  if (maxNorm > 0.0) {
    auto coef = torch::clamp_max(maxNorm / (total + 1e-6), 1.0);
    torch_compat::multiplyEach(grads, coef.to(grads.front().scalar_type()));
  }
  return total;
}

}  // namespace attnlab::core
