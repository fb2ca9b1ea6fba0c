#include "core/runtime/compute_environment.h"

#include "core/runtime/blas_kernels.h"

#include "core/runtime/device.h"
#include "core/runtime/engine_random.h"
#include "core/runtime/gpu_info.h"
#include "core/runtime/torch_compat.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <thread>

namespace attnlab::core {

int configureIntraOpThreads(int requested) {
  const int n = requested > 0 ? requested
                              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  torch::set_num_threads(n);
  return torch::get_num_threads();
}

double measureMatmulGflops(int n, int repetitions) {
  torch::NoGradGuard noGrad;
  at::Tensor a, b;
  {
    // A training run may be seeding the global generator for its construction right now.
    std::lock_guard<std::mutex> lock(globalGeneratorMutex());
    a = torch::randn({n, n});
    b = torch::randn({n, n});
  }
  auto c = torch::mm(a, b);  // warm-up: first call allocates and spins up threads
  double best = 0.0;
  for (int r = 0; r < std::max(1, repetitions); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    c = torch::mm(a, b);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * n * n * static_cast<double>(n) / s / 1e9);
  }
  return best;
}

std::string loadedBlasLibrary() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::string found;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    // libopenblas*.so carries the kernels; a plain libblas.so.3 means the reference BLAS.
    if (path.find("libopenblas") != std::string::npos) return path;
    if (found.empty() && path.find("libblas.so") != std::string::npos) found = path;
  }
  return found.empty() ? "unknown" : found;
}

std::string describeGpu(const GpuInfo& gpu) {
  std::ostringstream out;
  out << gpu.name << ", " << std::fixed << std::setprecision(1)
      << static_cast<double>(gpu.totalMemoryBytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return out.str();
}

std::string describeTorchVersions() {
  std::ostringstream out;
  out << "LibTorch " << TORCH_VERSION;
  if (!torch_compat::builtWithCuda()) {
    out << " (CPU only)";
    return out.str();
  }
  out << " (CUDA " << torch_compat::cudaRuntimeVersion() << ", cuDNN "
      << torch_compat::cudnnVersion() << ")";
  const auto gpus = listGpus();
  if (gpus.empty()) {
    out << "; no GPU present: training runs on the CPU";
    return out.str();
  }
  for (const auto& gpu : gpus) out << "; GPU " << gpu.index << ": " << describeGpu(gpu);
  return out.str();
}

std::string describeTorchBuild() {
  std::ostringstream out;
  out << describeTorchVersions() << ", intra-op threads " << torch::get_num_threads() << ", BLAS "
      << loadedBlasLibrary();
  // Which kernels OpenBLAS runs: its choice, or OPENBLAS_CORETYPE's (blas_kernels.h).
  if (const std::string core = loadedBlasCoreName(); !core.empty()) out << " (" << core << ")";
  return out.str();
}

}  // namespace attnlab::core
