#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnlab::core {

/// How AdamW updates its tensors. Both compute the same update; they differ in kernels.
enum class AdamWKernel {
  Auto,       ///< Fused on a GPU where LibTorch has it, per-tensor elsewhere
  PerTensor,  ///< a few element-wise operations per parameter (what the CPU runs)
  Fused,      ///< LibTorch's fused AdamW: one kernel for all parameters (LibTorch 2.x)
};

struct AdamWOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-6;
  double weightDecay = 0.01;
  AdamWKernel kernel = AdamWKernel::Auto;
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
  /// True when step() runs LibTorch's fused kernel (the options and the parameters' device).
  bool fused() const { return m_fused; }

 private:
  void stepPerTensor(double lr);
  void stepFused(double lr);

  std::vector<std::pair<std::string, at::Tensor>> m_params;
  std::vector<bool> m_decay;
  std::vector<at::Tensor> m_expAvg;
  std::vector<at::Tensor> m_expAvgSq;
  AdamWOptions m_options;
  std::int64_t m_step = 0;
  bool m_fused = false;
  /// The fused kernel's step counts: one float32 scalar per parameter on its device, as
  /// torch.optim.AdamW(fused=True) keeps them (advanced on the device, never read back).
  std::vector<at::Tensor> m_stepCounts;
};

/// Learning rate at optimiser step `step` (0-based): linear warm-up from 0 to `peak` over
/// `warmup` steps, then linear decay to 0 at `total` ("linear") or held ("constant").
double learningRateAt(std::int64_t step, double peak, std::int64_t warmup, std::int64_t total,
                      bool linearDecay);

}  // namespace attnlab::core
