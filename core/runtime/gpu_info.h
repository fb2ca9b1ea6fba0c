#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::core {

/// One GPU as this process sees it.
struct GpuInfo {
  int index = 0;
  std::string name;  ///< "NVIDIA H100 80GB HBM3"
  std::int64_t totalMemoryBytes = 0;
  int computeMajor = 0;  ///< compute capability, 9.0 for Hopper
  int computeMinor = 0;
  bool bfloat16 = false;  ///< native bfloat16 arithmetic (compute capability >= 8.0)
};

/// Every GPU this process can use, in CUDA's order; empty in a CPU-only build
/// (core/runtime/gpu_info_none.cpp) or where no GPU is present.
std::vector<GpuInfo> listGpus();

/// Bytes of GPU memory held by LibTorch's caching allocator on `index` (allocated, reserved);
/// {0, 0} without a GPU.
struct GpuMemoryUse {
  std::int64_t allocatedBytes = 0;
  std::int64_t reservedBytes = 0;
};
GpuMemoryUse gpuMemoryUse(int index);

/// "NVIDIA H100 80GB HBM3, 79.1 GiB" or, without a GPU, "CPU only".
std::string describeGpu(const GpuInfo& gpu);

}  // namespace attnlab::core
