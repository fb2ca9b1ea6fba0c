#include "core/runtime/device.h"

#include "core/errors/error.h"

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

c10::Device resolveDevice(DeviceChoice choice) {
  switch (choice) {
    case DeviceChoice::Cpu:
      return c10::Device(c10::kCPU);
    case DeviceChoice::Cuda:
      if (!cudaAvailable()) {
        throw ConfigError("device",
                          "'cuda' requested but this LibTorch has no usable CUDA device (Debian's "
                          "libtorch is CPU-only; build with -DATTNLAB_CUDA=ON and a CUDA LibTorch "
                          "via Torch_DIR)");
      }
      return c10::Device(c10::kCUDA, 0);
    case DeviceChoice::Auto:
      return cudaAvailable() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  }
  return c10::Device(c10::kCPU);
}

}  // namespace attnlab::core
