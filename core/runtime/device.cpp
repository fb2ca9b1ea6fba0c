#include "core/runtime/device.h"

#include "core/errors/error.h"
#include "core/runtime/torch_compat.h"

#include <torch/cuda.h>

namespace attnlab::core {

DeviceChoice parseDeviceChoice(std::string_view text, std::string_view keyPath) {
  if (const auto choice = parseChoice<DeviceChoice>(text)) return *choice;
  throw ConfigError(std::string(keyPath),
                    "expected one of cpu, cuda, auto; got '" + std::string(text) + "'");
}

bool cudaAvailable() {
  return torch::cuda::is_available();
}

namespace {
c10::Device gpuFor(int localRank) {
  const auto count = static_cast<int>(torch::cuda::device_count());
  return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(count > 0 ? localRank % count : 0));
}
}  // namespace

c10::Device resolveDevice(DeviceChoice choice, int localRank) {
  switch (choice) {
    case DeviceChoice::Cpu:
      return c10::Device(c10::kCPU);
    case DeviceChoice::Cuda:
      if (!cudaAvailable()) {
        // Name what was found: a CPU-only LibTorch, or a CUDA one that sees no GPU.
        const std::string found =
            torch_compat::builtWithCuda()
                ? "this LibTorch (CUDA " + torch_compat::cudaRuntimeVersion() +
                      ") found no GPU: no device visible to the driver (check nvidia-smi and "
                      "CUDA_VISIBLE_DEVICES)"
                : "this LibTorch is CPU-only (Debian's libtorch; the CUDA line is built by "
                  "packaging/setup-cuda.sh, docs/building.md)";
        throw ConfigError("train.device", "'cuda' requested but " + found);
      }
      return gpuFor(localRank);
    case DeviceChoice::Auto:
      return cudaAvailable() ? gpuFor(localRank) : c10::Device(c10::kCPU);
  }
  return c10::Device(c10::kCPU);
}

}  // namespace attnlab::core
