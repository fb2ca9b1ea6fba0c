#include "core/objectives/asa_objective.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdint>

namespace attnlab::core {

namespace {

// sum_rows KL(softmax(a) || softmax(b)) / N for logits [N, V], with its gradient written
// out: d/da = p (log p - log q - KL_row) / N and d/db = (q - p) / N. Autograd through
// log_softmax, exp, sub and mul would take about twice as many passes over the [N, V]
// logits (the vocabulary-sized tensors dominate ASA's objective). log_softmax on both
// sides keeps large logits finite where softmax followed by log would underflow to log(0).
struct RowMeanKlFunction : public torch::autograd::Function<RowMeanKlFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& a,
                               const torch::Tensor& b) {
    const auto logP = torch::log_softmax(a, -1);
    const auto logQ = torch::log_softmax(b, -1);
    const auto p = logP.exp();
    const auto d = logP - logQ;
    const auto rowKl = (p * d).sum(-1);  // [N]
    ctx->save_for_backward({p, d, logQ, rowKl});
    return rowKl.sum() / static_cast<double>(a.size(0));
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list gradOutputs) {
    const auto saved = ctx->get_saved_variables();
    const auto& p = saved[0];
    const auto& d = saved[1];
    const auto& logQ = saved[2];
    const auto& rowKl = saved[3];
    const auto scale = gradOutputs[0] / static_cast<double>(p.size(0));
    torch::Tensor gradA, gradB;
    if (ctx->needs_input_grad(0)) gradA = (d - rowKl.unsqueeze(1)).mul_(p).mul_(scale);
    if (ctx->needs_input_grad(1)) gradB = logQ.exp().sub_(p).mul_(scale);
    return {gradA, gradB};
  }
};

torch::Tensor klRowMean(const torch::Tensor& a, const torch::Tensor& b) {
  return RowMeanKlFunction::apply(a, b);
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
  const auto forward = klRowMean(clean, adversarial);
  if (!symmetric) return forward;
  return 0.5 * (forward + klRowMean(adversarial, clean));
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
