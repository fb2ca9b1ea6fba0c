#include "core/train/adamw.h"

#include "core/errors/error.h"
#include "core/runtime/torch_compat.h"

#include <torch/torch.h>

#include <cmath>

namespace attnlab::core {

namespace {
/// The fused kernel needs every tensor on one device in one dtype. Auto picks it on a GPU
/// only: there the per-tensor loop's ~9 launches per parameter (about 1,800 for BERT-base)
/// leave the card waiting; on the CPU the loop costs little and keeps results as they were.
bool useFusedKernel(AdamWKernel kernel, const std::vector<std::pair<std::string, at::Tensor>>& ps) {
  if (kernel == AdamWKernel::PerTensor || ps.empty()) return false;
  const auto& first = ps.front().second;
  bool uniform = true;
  for (const auto& [name, p] : ps)
    uniform = uniform && p.device() == first.device() && p.scalar_type() == first.scalar_type();
  const bool available = uniform && torch_compat::hasFusedAdamW(first.device().type());
  if (kernel == AdamWKernel::Fused && !available) {
    throw Error("optimizer",
                "the fused AdamW kernel needs LibTorch 2.x and every parameter on "
                "one device in one dtype");
  }
  return available && (kernel == AdamWKernel::Fused || first.is_cuda());
}
}  // namespace

AdamW::AdamW(std::vector<std::pair<std::string, at::Tensor>> params, AdamWOptions options)
    : m_params(std::move(params)), m_options(options) {
  for (const auto& [name, p] : m_params) {
    m_decay.push_back(decays(name, p));
    m_expAvg.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    m_expAvgSq.push_back(torch::zeros_like(p, torch::MemoryFormat::Preserve));
  }
  m_fused = useFusedKernel(options.kernel, m_params);
  if (m_fused) {
    for (const auto& [name, p] : m_params)
      m_stepCounts.push_back(torch::zeros({}, p.options().dtype(torch::kFloat)));
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
  if (m_fused)
    stepFused(lr);
  else
    stepPerTensor(lr);
}

void AdamW::stepFused(double lr) {
  // Every count advances, so each equals m_step (the checkpoint's one step, and the
  // per-tensor path's bias correction) whether or not its parameter has a gradient now.
  at::_foreach_add_(m_stepCounts, 1.0);
  // Two calls, one per weight-decay group; parameters without a gradient are left alone.
  for (const bool decayGroup : {true, false}) {
    std::vector<at::Tensor> params, grads, expAvgs, expAvgSqs, steps;
    for (size_t i = 0; i < m_params.size(); ++i) {
      const auto& grad = m_params[i].second.grad();
      if (!grad.defined() || m_decay[i] != decayGroup) continue;
      params.push_back(m_params[i].second);
      grads.push_back(grad);
      expAvgs.push_back(m_expAvg[i]);
      expAvgSqs.push_back(m_expAvgSq[i]);
      steps.push_back(m_stepCounts[i]);
    }
    if (params.empty()) continue;
    torch_compat::AdamWStepArguments a;
    a.learningRate = lr;
    a.beta1 = m_options.beta1;
    a.beta2 = m_options.beta2;
    a.eps = m_options.eps;
    a.weightDecay = decayGroup ? m_options.weightDecay : 0.0;
    torch_compat::fusedAdamW(params, grads, expAvgs, expAvgSqs, steps, a);
  }
}

void AdamW::stepPerTensor(double lr) {
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
  for (auto& count : m_stepCounts) count.fill_(static_cast<double>(m_step));
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
