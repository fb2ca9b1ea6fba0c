#include "core/runtime/device.h"

#include "core/errors/error.h"
#include "core/runtime/torch_compat.h"

#include <torch/cuda.h>

namespace attnlab::core {

DeviceSetting parseDevice(std::string_view text, std::string_view keyPath) {
  if (const auto setting = parseDeviceSetting(text)) return *setting;
  throw ConfigError(std::string(keyPath),
                    "expected one of cpu, cuda, cuda:N, auto; got '" + std::string(text) + "'");
}

bool cudaAvailable() {
  return torch::cuda::is_available();
}

void requireGpuPerProcess(int processes, int gpus) {
  if (gpus <= 0 || processes <= gpus) return;
  throw ConfigError("train.device",
                    "training on the GPU in " + std::to_string(processes) +
                        " processes on this machine needs a GPU for each (NCCL refuses two "
                        "processes on one GPU), and this machine has " +
                        std::to_string(gpus) + ": use --nproc-per-node " + std::to_string(gpus) +
                        " (or CUDA_VISIBLE_DEVICES), or train.device = cpu");
}

namespace {
c10::Device gpuFor(int localRank, int processesHere) {
  const auto count = static_cast<int>(torch::cuda::device_count());
  requireGpuPerProcess(processesHere, count);
  return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(count > 0 ? localRank % count : 0));
}

/// `cuda:N`: that GPU, for the one process of this machine.
c10::Device namedGpu(int index, int processesHere) {
  const auto count = static_cast<int>(torch::cuda::device_count());
  const std::string named = "'cuda:" + std::to_string(index) + "'";
  if (index >= count) {
    const std::string seen = std::to_string(count) + (count == 1 ? " GPU" : " GPUs");
    const std::string range = "cuda:0 to cuda:" + std::to_string(count - 1);
    throw ConfigError("train.device", named + " requested but this process sees " + seen + " (" +
                                          range + "; CUDA_VISIBLE_DEVICES renumbers them)");
  }
  if (processesHere > 1) {
    const std::string processes = std::to_string(processesHere) + " processes";
    throw ConfigError("train.device", named + " names one GPU, but " + processes +
                                          " train on this machine: use 'cuda' (each process "
                                          "takes GPU LOCAL_RANK)");
  }
  return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index));
}
}  // namespace

c10::Device resolveDevice(const DeviceSetting& setting, int localRank, int processesHere) {
  switch (setting.kind) {
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
        throw ConfigError("train.device",
                          "'" + deviceSettingName(setting) + "' requested but " + found);
      }
      if (setting.index >= 0) return namedGpu(setting.index, processesHere);
      return gpuFor(localRank, processesHere);
    case DeviceChoice::Auto:
      return cudaAvailable() ? gpuFor(localRank, processesHere) : c10::Device(c10::kCPU);
  }
  return c10::Device(c10::kCPU);
}

}  // namespace attnlab::core
