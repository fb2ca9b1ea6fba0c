// listGpus() for a CUDA LibTorch (ATTNLAB_CUDA=ON); the CPU-only line compiles
// gpu_info_none.cpp instead.
#include "core/runtime/gpu_info.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <torch/cuda.h>

namespace attnlab::core {

std::vector<GpuInfo> listGpus() {
  std::vector<GpuInfo> gpus;
  if (!torch::cuda::is_available()) return gpus;
  const auto count = static_cast<int>(torch::cuda::device_count());
  for (int i = 0; i < count; ++i) {
    const cudaDeviceProp* p = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(i));
    GpuInfo gpu;
    gpu.index = i;
    gpu.name = p->name;
    gpu.totalMemoryBytes = static_cast<std::int64_t>(p->totalGlobalMem);
    gpu.computeMajor = p->major;
    gpu.computeMinor = p->minor;
    gpu.bfloat16 = p->major >= 8;
    gpus.push_back(gpu);
  }
  return gpus;
}

GpuMemoryUse gpuMemoryUse(int index) {
  if (!torch::cuda::is_available()) return {};
  const auto stats =
      c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
  const auto all = static_cast<std::size_t>(c10::CachingAllocator::StatType::AGGREGATE);
  return {stats.allocated_bytes[all].current, stats.reserved_bytes[all].current};
}

}  // namespace attnlab::core
