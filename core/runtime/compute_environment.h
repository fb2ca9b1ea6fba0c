#pragma once

#include <string>

namespace attnlab::core {

/// Sets LibTorch's intra-op thread count. LibTorch defaults to 1 on this platform, so
/// the engine always sets it: `requested <= 0` means the number of cores. Returns the
/// count in force afterwards.
int configureIntraOpThreads(int requested);

/// Measures float32 matrix-product throughput (GFLOP/s) with an n x n matmul, so a slow
/// (reference) BLAS shows up in every benchmark and smoke run.
double measureMatmulGflops(int n = 1024, int repetitions = 5);

/// The BLAS library actually loaded in this process (from /proc/self/maps), or
/// "unknown". Shown so a slow or contended BLAS is visible.
std::string loadedBlasLibrary();

/// LibTorch's version, and for a CUDA LibTorch the CUDA and cuDNN versions it was built
/// with and every GPU present, or that none is: what `--version` prints.
std::string describeTorchVersions();

/// One line describing the LibTorch build: describeTorchVersions(), threads, BLAS.
std::string describeTorchBuild();

}  // namespace attnlab::core
