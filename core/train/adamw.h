#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnlab::core {

struct AdamWOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-6;
  double weightDecay = 0.01;
};

/// AdamW (Loshchilov & Hutter) with decoupled weight decay, the same update as
/// torch.optim.AdamW, written out so its state is keyed by parameter *name*: checkpoints
/// store "optimizer/<name>/exp_avg" and resume restores it exactly, independent of
/// tensor addresses.
class AdamW {
 public:
  /// `params` in a fixed order (named_parameters() order). Parameters for which
  /// `decays(name)` is false get no weight decay (biases and LayerNorm by convention).
  AdamW(std::vector<std::pair<std::string, at::Tensor>> params, AdamWOptions options);

  /// One update with learning rate `lr` using the parameters' current gradients.
  void step(double lr);
  void zeroGrad();

  /// Conventional rule: no decay on biases, LayerNorm parameters and 1-d tensors.
  static bool decays(const std::string& name, const at::Tensor& param);

  /// The state as named tensors ("optimizer/<name>/exp_avg", ".../exp_avg_sq") plus
  /// "optimizer/step" (int64). Tensors share storage with the live state.
  std::map<std::string, at::Tensor> state() const;
  /// Restores a state written by state(); throws CheckpointError naming a missing key or
  /// a shape mismatch.
  void loadState(const std::map<std::string, at::Tensor>& state);

  std::int64_t stepCount() const { return m_step; }
  const std::vector<std::pair<std::string, at::Tensor>>& parameters() const { return m_params; }

 private:
  std::vector<std::pair<std::string, at::Tensor>> m_params;
  std::vector<bool> m_decay;
  std::vector<at::Tensor> m_expAvg;
  std::vector<at::Tensor> m_expAvgSq;
  AdamWOptions m_options;
  std::int64_t m_step = 0;
};

/// Learning rate at optimiser step `step` (0-based): linear warm-up from 0 to `peak` over
/// `warmup` steps, then linear decay to 0 at `total` ("linear") or held ("constant").
double learningRateAt(std::int64_t step, double peak, std::int64_t warmup, std::int64_t total,
                      bool linearDecay);

}  // namespace attnlab::core
