#include "core/runtime/precision.h"

#include "core/errors/error.h"
#include "core/runtime/gpu_info.h"
#include "core/runtime/torch_compat.h"

#include <ATen/Context.h>
#include <torch/version.h>

#include <cstdlib>

namespace attnlab::core {
namespace {

/// The GPU a run uses, from listGpus(); a device index past the list is a programming error
/// (resolveDevice only returns GPUs it saw).
GpuInfo gpuOf(c10::Device device) {
  for (const auto& gpu : listGpus())
    if (gpu.index == device.index() || (device.index() < 0 && gpu.index == 0)) return gpu;
  return {};
}

void requireAmpere(const GpuInfo& gpu, const char* what) {
  if (gpu.computeMajor >= 8) return;
  throw ConfigError("train.precision",
                    std::string(what) + " needs a GPU of compute capability 8.0 or later; " +
                        gpu.name + " has " + std::to_string(gpu.computeMajor) + "." +
                        std::to_string(gpu.computeMinor) + " (use float32 or fp16)");
}

void setDeterministicGpuKernels() {
  // cuBLAS is deterministic only with a fixed workspace; it reads this when its first handle
  // is made, which has not happened yet when a run resolves its device.
  setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
  at::globalContext().setDeterministicCuDNN(true);
  at::globalContext().setBenchmarkCuDNN(false);
}

}  // namespace

PrecisionPlan applyPrecision(Precision precision, c10::Device device) {
  PrecisionPlan plan;
  plan.precision = precision;
  const bool gpu = device.is_cuda();
  const GpuInfo card = gpu ? gpuOf(device) : GpuInfo{};
  bool tf32 = false;
  switch (precision) {
    case Precision::Float32:
      plan.note = "float32";
      break;
    case Precision::Tf32:
      if (gpu) requireAmpere(card, "tf32");
      tf32 = gpu;
      plan.note = gpu ? "float32 with TF32 matrix products" : "float32 (TF32 exists on GPUs only)";
      break;
    case Precision::Bf16:
      if (gpu) requireAmpere(card, "bf16");
      if (!gpu && !torch_compat::cpuBfloat16Autocast())
        throw ConfigError("train.precision",
                          "bf16 on the CPU needs LibTorch 2.x (this is " TORCH_VERSION
                          ", whose CPU LayerNorm cannot take bfloat16 inputs with float32 "
                          "weights): use float32, or the CUDA line (packaging/setup-cuda.sh)");
      plan.autocast = true;
      plan.autocastType = c10::kBFloat16;
      plan.note = "bfloat16 autocast, float32 weights";
      break;
    case Precision::Fp16:
      if (!gpu)
        throw ConfigError("train.precision",
                          "fp16 (float16 with a loss scale) runs on a GPU; this run is on the "
                          "CPU: use bf16 or float32");
      plan.autocast = true;
      plan.autocastType = c10::kHalf;
      plan.lossScaling = true;
      plan.note = "float16 autocast with a dynamic loss scale, float32 weights";
      break;
  }
  at::globalContext().setAllowTF32CuBLAS(tf32);
  at::globalContext().setAllowTF32CuDNN(tf32);
  if (gpu) setDeterministicGpuKernels();
  return plan;
}

}  // namespace attnlab::core
