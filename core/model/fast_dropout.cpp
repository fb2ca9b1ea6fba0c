#include "core/model/fast_dropout.h"

#include "core/runtime/engine_random.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cstdint>
#include <mutex>

namespace attnlab::core {
namespace {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t drawSeed() {
  auto gen = threadGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return at::check_generator<at::CPUGeneratorImpl>(gen)->random64();
}

}  // namespace

torch::Tensor dropoutMask(const torch::Tensor& like, double p) {
  auto mask = torch::empty(like.sizes(), like.options().dtype(torch::kFloat).device(torch::kCPU));
  float* out = mask.data_ptr<float>();
  const std::int64_t n = mask.numel();
  const std::uint64_t seed = drawSeed();
  // Keep when the top 32 bits, as a fraction of 2^32, are >= p.
  const auto threshold = static_cast<std::uint64_t>(p * 4294967296.0);
  const float scale = static_cast<float>(1.0 / (1.0 - p));
  at::parallel_for(0, n, 1 << 15, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      const std::uint64_t r = splitmix64(seed + static_cast<std::uint64_t>(i)) >> 32;
      out[i] = r >= threshold ? scale : 0.0f;
    }
  });
  return mask;
}

FastDropoutImpl::FastDropoutImpl(double p) : m_p(p) {
  TORCH_CHECK(p >= 0.0 && p < 1.0, "dropout probability must be in [0, 1), got ", p);
}

torch::Tensor FastDropoutImpl::forward(const torch::Tensor& x) {
  if (!is_training() || m_p == 0.0) return x;
  if (!x.device().is_cpu()) return torch::dropout(x, m_p, /*train=*/true);
  return x * dropoutMask(x, m_p).to(x.dtype());
}

}  // namespace attnlab::core
