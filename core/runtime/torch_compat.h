#pragma once

// The one place where the two LibTorch lines differ (docs/building.md, "Two LibTorch
// lines"): Debian's 1.13 (the default build) and the 2.x CMake package of the `torch` wheel
// (packaging/setup-cuda.sh). Everything else in the project is written against the API
// the two share; a difference found later gets a function here, not an #if at its caller.

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::core::torch_compat {

/// LibTorch's version as major * 100 + minor (113 for 1.13, 211 for 2.11).
int torchVersion();

/// True when this LibTorch has the fused attention of 2.x
/// (`at::scaled_dot_product_attention`: flash / memory-efficient kernels on a GPU, the
/// fused flash kernel on the CPU); false on 1.13.
bool hasFusedAttention();

/// softmax(q k^T * scale + additiveBias) v, with dropout `dropout` on the probabilities, by
/// LibTorch's fused kernel. q, k, v: [B, heads, T, d]; `additiveBias` broadcasts to
/// [B, heads, T, T] (undefined: none). Only where hasFusedAttention(); throws otherwise.
at::Tensor fusedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          const at::Tensor& additiveBias, double dropout, double scale);

/// True when CPU autocast in bfloat16 can train the encoder: LibTorch 2.x. In 1.13 the CPU
/// LayerNorm refuses bfloat16 inputs with float32 weights ("expected scalar type BFloat16
/// but found Float"), which autocast leaves in float32.
bool cpuBfloat16Autocast();

/// How many times fusedAttention() has run in this process: tests and benchmarks read it
/// to show which path a model took (a relaxed atomic counter, no synchronisation).
std::uint64_t fusedAttentionCalls();

/// Automatic mixed precision for one device type while it lives (LibTorch's autocast:
/// matrix products in `dtype`, reductions and losses in float32), restoring what was in
/// force before; the autocast cache is cleared when the outermost scope ends.
class AutocastScope {
 public:
  AutocastScope(c10::DeviceType device, c10::ScalarType dtype);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType m_device;
  bool m_wasEnabled;
  c10::ScalarType m_previousType;
};

/// True when this LibTorch has the fused AdamW kernel (`at::_fused_adamw_`, one kernel for
/// a whole list of tensors) for tensors on `device`: 2.x on CUDA, 2.4 and later on the CPU;
/// never on 1.13.
bool hasFusedAdamW(c10::DeviceType device);

/// AdamW's hyper-parameters for one fused update.
struct AdamWStepArguments {
  double learningRate = 0;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-6;
  double weightDecay = 0;
};

/// One AdamW update of every tensor in `params` by LibTorch's fused kernel: decoupled weight
/// decay, then the moments, then the bias-corrected step, as torch.optim.AdamW(fused=True).
/// `steps` holds one float32 step count per parameter, already counting this update. All
/// lists have the same length and the tensors one device and dtype. Only where
/// hasFusedAdamW(); throws otherwise.
void fusedAdamW(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads,
                const std::vector<at::Tensor>& expAvgs, const std::vector<at::Tensor>& expAvgSqs,
                const std::vector<at::Tensor>& steps, const AdamWStepArguments& arguments);

/// Multiplies every tensor in `tensors` in place by the 0-d tensor `factor`, without reading
/// it on the host: one multi-tensor kernel on 2.x, a loop on 1.13 (which has no tensor
/// overload of `_foreach_mul_`).
void multiplyEach(const std::vector<at::Tensor>& tensors, const at::Tensor& factor);

/// The CUDA runtime LibTorch was built against ("13.0"), or "none" for a CPU-only LibTorch.
std::string cudaRuntimeVersion();

/// The cuDNN LibTorch was built against ("9.19.0"), or "none".
std::string cudnnVersion();

/// True when this LibTorch was built with CUDA, whether or not a GPU is present.
bool builtWithCuda();

}  // namespace attnlab::core::torch_compat
