#include "core/train/adamw.h"

#include "core/errors/error.h"

#include <torch/torch.h>

#include <cmath>

namespace attnlab::core {

AdamW::AdamW(std::vector<std::pair<std::string, at::Tensor>> params, AdamWOptions options)
    : m_params(std::move(params)), m_options(options) {
  for (const auto& [name, p] : m_params) {
    m_decay.push_back(decays(name, p));
    m_expAvg.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    m_expAvgSq.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
  }
}

bool AdamW::decays(const std::string& name, const at::Tensor& param) {
  const bool isBias = name.size() >= 4 && name.compare(name.size() - 4, 4, "bias") == 0;
  const bool isNorm = name.find("norm") != std::string::npos;
  return !isBias && !isNorm && param.dim() > 1;
}

void AdamW::step(double lr) {
  torch::NoGradGuard noGrad;
  ++m_step;
  const double b1 = m_options.beta1, b2 = m_options.beta2;
  const double biasCorrection1 = 1.0 - std::pow(b1, double(m_step));
  const double biasCorrection2Sqrt = std::sqrt(1.0 - std::pow(b2, double(m_step)));
  const double stepSize = lr / biasCorrection1;
  for (size_t i = 0; i < m_params.size(); ++i) {
    auto& p = m_params[i].second;
    const auto& grad = p.grad();
    if (!grad.defined()) continue;
    if (m_decay[i] && m_options.weightDecay != 0.0) p.mul_(1.0 - lr * m_options.weightDecay);
    m_expAvg[i].mul_(b1).add_(grad, 1.0 - b1);
    m_expAvgSq[i].mul_(b2).addcmul_(grad, grad, 1.0 - b2);
    auto denom = (m_expAvgSq[i].sqrt() / biasCorrection2Sqrt).add_(m_options.eps);
    p.addcdiv_(m_expAvg[i], denom, -stepSize);
  }
}

void AdamW::zeroGrad() {
  // Undefined rather than zero-filled: the next backward then stores its gradient
  // directly instead of zero-filling and adding into a buffer.
  for (auto& [name, p] : m_params) p.mutable_grad() = at::Tensor();
}

std::map<std::string, at::Tensor> AdamW::state() const {
  std::map<std::string, at::Tensor> out;
  for (size_t i = 0; i < m_params.size(); ++i) {
    out["optimizer/" + m_params[i].first + "/exp_avg"] = m_expAvg[i];
    out["optimizer/" + m_params[i].first + "/exp_avg_sq"] = m_expAvgSq[i];
  }
  out["optimizer/step"] = torch::tensor(m_step, torch::kLong);
  return out;
}

void AdamW::loadState(const std::map<std::string, at::Tensor>& state) {
  auto fetch = [&](const std::string& key, const at::Tensor& like) {
    const auto it = state.find(key);
    if (it == state.end()) throw CheckpointError(key, "missing optimiser state in the checkpoint");
    if (it->second.sizes() != like.sizes()) {
      throw CheckpointError(key, "optimiser state has shape " + c10::str(it->second.sizes()) +
                                     " but the parameter has " + c10::str(like.sizes()));
    }
    return it->second;
  };
  torch::NoGradGuard noGrad;
  for (size_t i = 0; i < m_params.size(); ++i) {
    const auto& name = m_params[i].first;
    m_expAvg[i].copy_(fetch("optimizer/" + name + "/exp_avg", m_expAvg[i]));
    m_expAvgSq[i].copy_(fetch("optimizer/" + name + "/exp_avg_sq", m_expAvgSq[i]));
  }
  const auto it = state.find("optimizer/step");
  if (it == state.end()) throw CheckpointError("optimizer/step", "missing in the checkpoint");
  m_step = it->second.item<std::int64_t>();
}

double learningRateAt(std::int64_t step, double peak, std::int64_t warmup, std::int64_t total,
                      bool linearDecay) {
  // `step` is 0-based: update s uses (s + 1) / warmup of the peak during warm-up, so the
  // first update is not wasted at lr 0 and the peak is reached at s = warmup - 1.
  if (step < warmup) return peak * double(step + 1) / double(warmup);
  if (!linearDecay) return peak;
  // From the peak at s = warmup down to 0 at s = total.
  const double span = double(std::max<std::int64_t>(1, total - warmup));
  return peak * std::max(0.0, double(total - step) / span);
}

}  // namespace attnlab::core
