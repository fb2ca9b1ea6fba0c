#pragma once

// Where a GPU step's time goes (bench_gpu --profile): LibTorch's Kineto profiler records the
// device kernels of a few steps; the summary groups them into GEMMs, attention, the
// optimiser, normalisation and the remaining element-wise work, lists the costliest
// kernels, and says how much of the wall time the GPU was busy (the rest is the card
// waiting for the host). A developer's tool for the benchmark, not part of the engine.
#include <functional>
#include <string>
#include <vector>

namespace attnlab::bench {

struct KernelTotal {
  std::string name;
  double ms = 0;
  int calls = 0;
};

struct KernelProfile {
  bool available = false;  ///< false where this LibTorch has no usable profiler
  double wallMs = 0;       ///< from the first kernel's start to the last one's end
  double busyMs = 0;       ///< union of the kernels' intervals
  std::vector<KernelTotal> byCategory;
  std::vector<KernelTotal> top;  ///< costliest kernels, by total time
};

/// Runs `work` (which must end by synchronising the device) under the profiler; writes a
/// Chrome trace to `tracePath` when it is not empty.
KernelProfile profileKernels(const std::function<void()>& work, const std::string& tracePath,
                             int topCount);

/// Prints the profile under a heading.
void printKernelProfile(const std::string& heading, const KernelProfile& profile, int steps);

}  // namespace attnlab::bench
