#include "core/objectives/asa_objective.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace attnlab::core {

namespace {

// sum_rows KL(softmax(a) || softmax(b)) / D for logits [N, V] and a divisor D (N for a mean
// over rows, B for the per-sequence sum), with its gradient written out:
// d/da = p (log p - log q - KL_row) / D and d/db = (q - p) / D. Autograd through
// log_softmax, exp, sub and mul would take about twice as many passes over the [N, V]
// logits (the vocabulary-sized tensors dominate ASA's objective). log_softmax on both
// sides keeps large logits finite where softmax followed by log would underflow to log(0).
struct RowKlSumFunction : public torch::autograd::Function<RowKlSumFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& a,
                               const torch::Tensor& b, double divisor) {
    const auto logP = torch::log_softmax(a, -1);
    const auto logQ = torch::log_softmax(b, -1);
    const auto p = logP.exp();
    const auto d = logP - logQ;
    const auto rowKl = (p * d).sum(-1);  // [N]
    ctx->save_for_backward({p, d, logQ, rowKl});
    ctx->saved_data["divisor"] = divisor;
    return rowKl.sum() / divisor;
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list gradOutputs) {
    const auto saved = ctx->get_saved_variables();
    const auto& p = saved[0];
    const auto& d = saved[1];
    const auto& logQ = saved[2];
    const auto& rowKl = saved[3];
    const auto scale = gradOutputs[0] / ctx->saved_data["divisor"].toDouble();
    torch::Tensor gradA, gradB;
    if (ctx->needs_input_grad(0)) gradA = (d - rowKl.unsqueeze(1)).mul_(p).mul_(scale);
    if (ctx->needs_input_grad(1)) gradB = logQ.exp().sub_(p).mul_(scale);
    return {gradA, gradB, torch::Tensor()};
  }
};

// D(clean || adv) summed over rows and divided by `divisor`: forward, or both directions
// halved (symmetric).
torch::Tensor klOverRows(const torch::Tensor& clean, const torch::Tensor& adversarial,
                         bool symmetric, double divisor) {
  const auto forward = RowKlSumFunction::apply(clean, adversarial, divisor);
  if (!symmetric) return forward;
  return 0.5 * (forward + RowKlSumFunction::apply(adversarial, clean, divisor));
}

// Both passes' logits as rows [N, V] ([B, T, V] is flattened to the same).
std::pair<torch::Tensor, torch::Tensor> logitRows(const at::Tensor& cleanLogits,
                                                  const at::Tensor& adversarialLogits) {
  TORCH_CHECK(cleanLogits.sizes() == adversarialLogits.sizes(),
              "predictionKl: the two passes' logits differ in shape");
  TORCH_CHECK(cleanLogits.dim() >= 1, "predictionKl: logits need a vocabulary axis");
  const auto vocab = cleanLogits.size(-1);
  return {cleanLogits.reshape({-1, vocab}), adversarialLogits.reshape({-1, vocab})};
}

// No rows (no masked position in the batch): zero, still attached to both inputs so a
// caller's backward() works uniformly.
torch::Tensor attachedZero(const torch::Tensor& clean, const torch::Tensor& adversarial) {
  return (clean.sum() + adversarial.sum()) * 0.0;
}

}  // namespace

at::Tensor predictionKl(const at::Tensor& cleanLogits, const at::Tensor& adversarialLogits,
                        bool symmetric) {
  const auto [clean, adversarial] = logitRows(cleanLogits, adversarialLogits);
  if (clean.size(0) == 0) return attachedZero(clean, adversarial);
  return klOverRows(clean, adversarial, symmetric, static_cast<double>(clean.size(0)));
}

at::Tensor predictionKlPerSequence(const at::Tensor& cleanLogits,
                                   const at::Tensor& adversarialLogits, bool symmetric,
                                   std::int64_t sequences) {
  const auto [clean, adversarial] = logitRows(cleanLogits, adversarialLogits);
  if (clean.size(0) == 0) return attachedZero(clean, adversarial);
  TORCH_CHECK(sequences > 0, "predictionKlPerSequence: no sequences to divide by");
  return klOverRows(clean, adversarial, symmetric, static_cast<double>(sequences));
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
