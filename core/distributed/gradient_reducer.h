#pragma once

// The gradient sum over the ranks, overlapped with the backward pass (issue 24): each
// parameter's gradient is copied into a flat bucket the moment autograd produces it, and a
// bucket's sum starts as soon as the bucket is complete, while the earlier layers' backward
// is still running. DistributedContext::sumGradients, which starts after backward, is the
// reference it must equal.
//
// Collectives are matched by the order they are started, so the buckets start strictly in
// bucket order on every rank (a complete bucket waits for the ones before it), and the
// buckets are formed from the *last* parameters first, whose gradients backward produces
// first. The flags saying which parameters have a gradient on some rank go last.

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace attnlab::core {

class DistributedContext;

class GradientReducer {
 public:
  /// 16 MiB: the fastest of 1, 4 and 16 MiB in tests/bench/bench_distributed on the 2-core
  /// machine (2 processes, bench config; the differences were within that run's noise), and
  /// few enough collectives for the 0.3 ms each costs there; PyTorch's DDP uses 25 MiB.
  static constexpr std::int64_t kDefaultBucketBytes = std::int64_t{16} << 20;

  /// Registers a gradient hook on every parameter; `parameters` (which must require grad)
  /// and `ranks` must outlive the reducer, which removes its hooks when destroyed.
  GradientReducer(DistributedContext& ranks, std::vector<at::Tensor> parameters,
                  std::int64_t bucketBytes = kDefaultBucketBytes);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  /// The next backward pass is this rank's last of the step: its gradients (plus what the
  /// step's earlier micro-batches accumulated) go into the buckets as they arrive. Outside
  /// an armed pass the hooks do nothing.
  void arm();
  /// After that backward pass: starts the buckets still waiting (a parameter without a
  /// gradient here counts as zero), waits for every sum and writes it into the gradients,
  /// with DistributedContext::sumGradients's rule for parameters without a gradient.
  void finish();

  int bucketCount() const;
  /// Of the last step's buckets, how many started during the backward pass.
  int bucketsStartedInBackward() const { return m_startedInBackward; }

 private:
  struct Bucket;
  void onGradient(std::size_t index, const at::Tensor& grad);
  void startCompleteBuckets();
  void start(Bucket& bucket);
  at::Tensor slot(std::size_t index) const;

  DistributedContext& m_ranks;
  std::vector<at::Tensor> m_params;
  std::vector<Bucket> m_buckets;
  std::vector<std::size_t> m_bucketOf;   ///< per parameter
  std::vector<std::int64_t> m_offsetOf;  ///< per parameter, within its bucket
  std::vector<unsigned> m_hookHandles;
  std::vector<char> m_arrived;  ///< per parameter, this armed pass
  std::size_t m_nextToStart = 0;
  bool m_armed = false;
  int m_startedInBackward = 0;
};

}  // namespace attnlab::core
