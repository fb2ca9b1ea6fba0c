#include "tests/bench/kernel_profile.h"

#include <torch/version.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

// The Kineto API below is LibTorch 2.x's; the GPU line is 2.x, and on 1.13 (CPU only) the
// profile reports itself unavailable. A benchmark tool, so its one version test stays here
// rather than in the engine's core/runtime/torch_compat.
#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/autograd/profiler_kineto.h>
#define ATTNLAB_BENCH_HAS_KINETO 1
#endif

namespace attnlab::bench {

#ifdef ATTNLAB_BENCH_HAS_KINETO
namespace {

/// A kernel's family, from the names cuBLAS, cuDNN, LibTorch and Triton give them.
std::string categoryOf(const std::string& name) {
  const auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  if (has("gemm") || has("nvjet") || has("xmma") || has("cutlass") || has("cublas")) return "gemm";
  if (has("fmha") || has("flash") || has("attention") || has("Attention")) return "attention";
  if (has("adam") || has("Adam") || has("multi_tensor") || has("foreach")) return "optimizer";
  if (has("layer_norm") || has("LayerNorm") || has("softmax") || has("Softmax"))
    return "norm/softmax";
  if (has("Memcpy") || has("Memset") || has("memcpy") || has("memset")) return "memcpy/memset";
  if (has("triton")) return "triton (fused)";
  return "other element-wise";
}

std::vector<KernelTotal> sortedTotals(const std::map<std::string, KernelTotal>& totals) {
  std::vector<KernelTotal> out;
  for (const auto& [name, total] : totals) out.push_back(total);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.ms > b.ms; });
  return out;
}

double unionMs(std::vector<std::pair<std::uint64_t, std::uint64_t>> spans) {
  std::sort(spans.begin(), spans.end());
  double busyNs = 0;
  std::uint64_t end = 0;
  for (const auto& [s, e] : spans) {
    const std::uint64_t from = std::max(s, end);
    if (e > from) busyNs += double(e - from);
    end = std::max(end, e);
  }
  return busyNs / 1e6;
}

}  // namespace

KernelProfile profileKernels(const std::function<void()>& work, const std::string& tracePath,
                             int topCount) {
  namespace prof = torch::autograd::profiler;
  using torch::profiler::impl::ActivityType;
  const torch::profiler::impl::ProfilerConfig config(torch::profiler::impl::ProfilerState::KINETO);
  const std::set<ActivityType> activities{ActivityType::CPU, ActivityType::CUDA};
  prof::prepareProfiler(config, activities);
  prof::enableProfiler(config, activities);
  work();
  const auto result = prof::disableProfiler();
  KernelProfile p;
  p.available = true;
  std::map<std::string, KernelTotal> byName, byCategory;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (const auto& e : result->events()) {
    if (e.deviceType() != c10::DeviceType::CUDA || e.durationNs() == 0) continue;
    const double ms = double(e.durationNs()) / 1e6;
    auto& k = byName[e.name()];
    k.name = e.name().substr(0, 96), k.ms += ms, ++k.calls;
    auto& c = byCategory[categoryOf(e.name())];
    c.name = categoryOf(e.name()), c.ms += ms, ++c.calls;
    spans.emplace_back(e.startNs(), e.endNs());
  }
  if (!spans.empty()) {
    const auto first = std::min_element(spans.begin(), spans.end())->first;
    std::uint64_t last = 0;
    for (const auto& s : spans) last = std::max(last, s.second);
    p.wallMs = double(last - first) / 1e6;
    p.busyMs = unionMs(spans);
  }
  p.byCategory = sortedTotals(byCategory);
  p.top = sortedTotals(byName);
  if (p.top.size() > static_cast<std::size_t>(topCount)) p.top.resize(topCount);
  if (!tracePath.empty()) result->save(tracePath);
  return p;
}
#else
KernelProfile profileKernels(const std::function<void()>& work, const std::string&, int) {
  work();
  return {};
}
#endif

void printKernelProfile(const std::string& heading, const KernelProfile& p, int steps) {
  if (!p.available) {
    std::printf("%s: no profiler in this LibTorch\n", heading.c_str());
    return;
  }
  std::printf("%s: %d steps, GPU busy %.1f of %.1f ms (%.0f%%)\n", heading.c_str(), steps, p.busyMs,
              p.wallMs, p.wallMs > 0 ? 100.0 * p.busyMs / p.wallMs : 0.0);
  for (const auto& c : p.byCategory)
    std::printf("  category %-20s %8.2f ms/step %6d kernels/step\n", c.name.c_str(), c.ms / steps,
                c.calls / steps);
  for (const auto& k : p.top)
    std::printf("  kernel %8.2f ms/step x%-5d %s\n", k.ms / steps, k.calls / steps, k.name.c_str());
}

}  // namespace attnlab::bench
