// listGpus() for a LibTorch without CUDA (Debian's): there is no GPU to list. The CUDA line
// compiles gpu_info_cuda.cpp instead (core/CMakeLists.txt picks one).
#include "core/runtime/gpu_info.h"

namespace attnlab::core {

std::vector<GpuInfo> listGpus() {
  return {};
}

GpuMemoryUse gpuMemoryUse(int) {
  return {};
}

}  // namespace attnlab::core
