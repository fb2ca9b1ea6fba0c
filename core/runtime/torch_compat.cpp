#include "core/runtime/torch_compat.h"

#include "core/errors/error.h"

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/version.h>

#include <atomic>
#include <exception>

#if TORCH_VERSION_MAJOR >= 2
#include <ATen/ops/_foreach_mul.h>
#include <ATen/ops/_fused_adamw.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#define ATTNLAB_TORCH_HAS_SDPA 1
#define ATTNLAB_TORCH_HAS_FUSED_ADAMW 1
#endif

namespace attnlab::core::torch_compat {
namespace {
std::atomic<std::uint64_t> g_fusedCalls{0};
}  // namespace

bool cpuBfloat16Autocast() {
  return TORCH_VERSION_MAJOR >= 2;
}

std::uint64_t fusedAttentionCalls() {
  return g_fusedCalls.load(std::memory_order_relaxed);
}

int torchVersion() {
  return TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR;
}

bool hasFusedAttention() {
#ifdef ATTNLAB_TORCH_HAS_SDPA
  return true;
#else
  return false;
#endif
}

at::Tensor fusedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          const at::Tensor& additiveBias, double dropout, double scale) {
#ifdef ATTNLAB_TORCH_HAS_SDPA
  g_fusedCalls.fetch_add(1, std::memory_order_relaxed);
  std::optional<at::Tensor> mask;
  if (additiveBias.defined()) mask = additiveBias.to(q.scalar_type());
  return at::scaled_dot_product_attention(q, k, v, mask, dropout, /*is_causal=*/false, scale);
#else
  (void)q, (void)k, (void)v, (void)additiveBias, (void)dropout, (void)scale;
  throw Error("attention", "this LibTorch (" TORCH_VERSION
                           ") has no fused attention; it needs LibTorch 2.0 or later");
#endif
}

bool hasFusedAdamW(c10::DeviceType device) {
#ifdef ATTNLAB_TORCH_HAS_FUSED_ADAMW
  if (device == c10::DeviceType::CUDA) return true;
  return device == c10::DeviceType::CPU && torchVersion() >= 204;
#else
  (void)device;
  return false;
#endif
}

void fusedAdamW(const std::vector<at::Tensor>& params, const std::vector<at::Tensor>& grads,
                const std::vector<at::Tensor>& expAvgs, const std::vector<at::Tensor>& expAvgSqs,
                const std::vector<at::Tensor>& steps, const AdamWStepArguments& a) {
#ifdef ATTNLAB_TORCH_HAS_FUSED_ADAMW
  at::_fused_adamw_(params, grads, expAvgs, expAvgSqs, /*max_exp_avg_sqs=*/{}, steps,
                    a.learningRate, a.beta1, a.beta2, a.weightDecay, a.eps, /*amsgrad=*/false,
                    /*maximize=*/false);
#else
  (void)params, (void)grads, (void)expAvgs, (void)expAvgSqs, (void)steps, (void)a;
  throw Error("optimizer", "this LibTorch (" TORCH_VERSION
                           ") has no fused AdamW; it needs LibTorch 2.0 or later");
#endif
}

void multiplyEach(const std::vector<at::Tensor>& tensors, const at::Tensor& factor) {
  bool oneType = true;
  for (const auto& t : tensors) oneType = oneType && t.scalar_type() == factor.scalar_type();
#ifdef ATTNLAB_TORCH_HAS_FUSED_ADAMW
  if (oneType && !tensors.empty()) {
    at::_foreach_mul_(tensors, factor);
    return;
  }
#endif
  for (const auto& t : tensors) t.mul_(oneType ? factor : factor.to(t.scalar_type()));
}

// 1.13 has one switch per device kind (set_enabled for CUDA, set_cpu_enabled); 2.x one
// function taking the device type.
namespace {
bool autocastEnabled(c10::DeviceType device) {
#if TORCH_VERSION_MAJOR >= 2
  return at::autocast::is_autocast_enabled(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::is_enabled()
                                         : at::autocast::is_cpu_enabled();
#endif
}
void setAutocastEnabled(c10::DeviceType device, bool enabled) {
#if TORCH_VERSION_MAJOR >= 2
  at::autocast::set_autocast_enabled(device, enabled);
#else
  if (device == c10::DeviceType::CUDA)
    at::autocast::set_enabled(enabled);
  else
    at::autocast::set_cpu_enabled(enabled);
#endif
}
c10::ScalarType autocastType(c10::DeviceType device) {
#if TORCH_VERSION_MAJOR >= 2
  return at::autocast::get_autocast_dtype(device);
#else
  return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                         : at::autocast::get_autocast_cpu_dtype();
#endif
}
void setAutocastType(c10::DeviceType device, c10::ScalarType dtype) {
#if TORCH_VERSION_MAJOR >= 2
  at::autocast::set_autocast_dtype(device, dtype);
#else
  if (device == c10::DeviceType::CUDA)
    at::autocast::set_autocast_gpu_dtype(dtype);
  else
    at::autocast::set_autocast_cpu_dtype(dtype);
#endif
}
}  // namespace

AutocastScope::AutocastScope(c10::DeviceType device, c10::ScalarType dtype)
    : m_device(device),
      m_wasEnabled(autocastEnabled(device)),
      m_previousType(autocastType(device)) {
  setAutocastType(device, dtype);
  setAutocastEnabled(device, true);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  setAutocastEnabled(m_device, m_wasEnabled);
  setAutocastType(m_device, m_previousType);
}

namespace {
/// "MAJOR.MINOR[.PATCH]" from a version number whose digits are grouped by `base`.
std::string dotted(long version, long majorBase, long minorBase, bool withPatch) {
  std::string out =
      std::to_string(version / majorBase) + "." + std::to_string((version % majorBase) / minorBase);
  if (withPatch) out += "." + std::to_string(version % minorBase);
  return out;
}
}  // namespace

bool builtWithCuda() {
  // The hooks are registered by libtorch_cuda; a CPU-only LibTorch has the stub, which
  // throws where a CUDA build answers with its compile-time version.
  try {
    return at::detail::getCUDAHooks().versionCUDART() > 0;
  } catch (const std::exception&) {
    return false;
  }
}

std::string cudaRuntimeVersion() {
  try {
    // CUDART_VERSION: 13000 for 13.0.
    return dotted(at::detail::getCUDAHooks().versionCUDART(), 1000, 10, false);
  } catch (const std::exception&) {
    return "none";
  }
}

std::string cudnnVersion() {
  try {
    if (!at::detail::getCUDAHooks().hasCuDNN()) return "none";
    const long v = at::detail::getCUDAHooks().versionCuDNN();
    // cuDNN 9 numbers its versions MAJOR*10000 + MINOR*100 + PATCH; cuDNN 8, *1000 + *100.
    return v >= 90000 ? dotted(v, 10000, 100, true) : dotted(v, 1000, 100, true);
  } catch (const std::exception&) {
    return "none";
  }
}

}  // namespace attnlab::core::torch_compat
