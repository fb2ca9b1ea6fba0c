#include "core/objectives/asa_objective.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdint>

namespace attnlab::core {

namespace {

// sum_rows KL(p || q) / N from log-probabilities. log_softmax on both sides keeps large
// logits finite where softmax followed by log would underflow to log(0).
torch::Tensor klRowMean(const torch::Tensor& logP, const torch::Tensor& logQ) {
  const auto rows = logP.size(0);
  return (logP.exp() * (logP - logQ)).sum() / static_cast<double>(rows);
}

}  // namespace

at::Tensor predictionKl(const at::Tensor& cleanLogits, const at::Tensor& adversarialLogits,
                        bool symmetric) {
  TORCH_CHECK(cleanLogits.sizes() == adversarialLogits.sizes(),
              "predictionKl: the two passes' logits differ in shape");
  TORCH_CHECK(cleanLogits.dim() >= 1, "predictionKl: logits need a vocabulary axis");
  // Leading axes are rows ([N, V] from the MLM head; [B, T, V] is flattened to the same).
  const auto vocab = cleanLogits.size(-1);
  const auto clean = cleanLogits.reshape({-1, vocab});
  const auto adversarial = adversarialLogits.reshape({-1, vocab});
  if (clean.size(0) == 0) {
    // No rows (no masked position in the batch): zero, still attached to both inputs so a
    // caller's backward() works uniformly.
    return (clean.sum() + adversarial.sum()) * 0.0;
  }
  const auto logP = torch::log_softmax(clean, -1);
  const auto logQ = torch::log_softmax(adversarial, -1);
  const auto forward = klRowMean(logP, logQ);
  if (!symmetric) return forward;
  return 0.5 * (forward + klRowMean(logQ, logP));
}

at::Tensor maskPenalty(const std::vector<at::Tensor>& keepMasks, double tau, bool squared) {
  torch::Tensor sum;
  for (const auto& m : keepMasks) {
    if (!m.defined()) continue;
    const auto batch = std::max<std::int64_t>(m.size(0), 1);
    const auto term = m.sum() / static_cast<double>(batch);
    sum = sum.defined() ? sum + term : term;
  }
  if (!sum.defined()) return torch::zeros({});
  return sum * (squared ? tau * tau : tau);
}

at::Tensor maskingProportion(const at::Tensor& keepMask, const at::Tensor& attentionMask) {
  torch::NoGradGuard noGrad;
  const auto real = attentionMask.ne(0);
  const auto realPair = real.unsqueeze(2).logical_and(real.unsqueeze(1));  // [B, T, T]
  // The straight-through M equals 0 or 1 only up to rounding ((1 - s) + s), so a cell
  // counts as masked below one half rather than at exactly 0.
  const auto masked = keepMask.detach().lt(0.5).logical_and(realPair);
  const auto cells = realPair.sum().to(torch::kFloat64);
  const auto share = masked.sum().to(torch::kFloat64) / cells.clamp_min(1.0);
  return share.to(torch::kFloat32);
}

}  // namespace attnlab::core
