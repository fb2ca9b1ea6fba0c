#include "core/distributed/gradient_reducer.h"

#include "core/distributed/distributed_context.h"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace attnlab::core {

struct GradientReducer::Bucket {
  std::vector<std::size_t> members;
  at::Tensor flat;  ///< allocated once; the members' gradients side by side
  std::size_t arrived = 0;
  PendingSum pending;
};

GradientReducer::GradientReducer(DistributedContext& ranks, std::vector<at::Tensor> parameters,
                                 std::int64_t bucketBytes)
    : m_ranks(ranks), m_params(std::move(parameters)) {
  const std::size_t n = m_params.size();
  m_bucketOf.resize(n);
  m_offsetOf.resize(n);
  m_arrived.assign(n, 0);
  // From the last parameter to the first: backward produces the last layers' gradients first.
  std::int64_t bytes = 0, elements = 0;
  for (std::size_t k = n; k-- > 0;) {
    const at::Tensor& p = m_params[k];
    const std::int64_t size = p.numel() * static_cast<std::int64_t>(p.element_size());
    const bool fits = !m_buckets.empty() && bytes + size <= bucketBytes &&
                      m_params[m_buckets.back().members.front()].options().type_equal(p.options());
    if (!fits) {
      m_buckets.emplace_back();
      bytes = elements = 0;
    }
    m_buckets.back().members.push_back(k);
    m_bucketOf[k] = m_buckets.size() - 1;
    m_offsetOf[k] = elements;
    bytes += size;
    elements += p.numel();
  }
  for (auto& bucket : m_buckets) {
    std::int64_t total = 0;
    for (std::size_t k : bucket.members) total += m_params[k].numel();
    bucket.flat = torch::empty({total}, m_params[bucket.members.front()].options());
  }
  for (std::size_t k = 0; k < n; ++k) {
    m_hookHandles.push_back(
        m_params[k].register_hook([this, k](const at::Tensor& grad) { onGradient(k, grad); }));
  }
}

GradientReducer::~GradientReducer() {
  for (std::size_t k = 0; k < m_hookHandles.size(); ++k) m_params[k].remove_hook(m_hookHandles[k]);
}

int GradientReducer::bucketCount() const {
  return static_cast<int>(m_buckets.size());
}

at::Tensor GradientReducer::slot(std::size_t index) const {
  return m_buckets[m_bucketOf[index]].flat.narrow(0, m_offsetOf[index], m_params[index].numel());
}

void GradientReducer::arm() {
  m_armed = true;
  m_startedInBackward = 0;
}

void GradientReducer::onGradient(std::size_t index, const at::Tensor& grad) {
  if (!m_armed) return;
  Bucket& bucket = m_buckets[m_bucketOf[index]];
  if (m_arrived[index] || bucket.pending.started()) {
    throw std::logic_error("GradientReducer: a second gradient for parameter " +
                           std::to_string(index) + " in one backward pass");
  }
  torch::NoGradGuard noGrad;
  at::Tensor target = slot(index);
  target.copy_(grad.reshape({-1}));
  // What the step's earlier micro-batches accumulated: autograd adds this gradient to it
  // after the hook, and the sum here is the same addition (IEEE addition commutes).
  const at::Tensor& earlier = m_params[index].grad();
  if (earlier.defined()) target.add_(earlier.reshape({-1}));
  m_arrived[index] = 1;
  if (++bucket.arrived == bucket.members.size()) {
    startCompleteBuckets();
    m_startedInBackward = static_cast<int>(m_nextToStart);
  }
}

void GradientReducer::startCompleteBuckets() {
  while (m_nextToStart < m_buckets.size() &&
         m_buckets[m_nextToStart].arrived == m_buckets[m_nextToStart].members.size()) {
    start(m_buckets[m_nextToStart++]);
  }
}

void GradientReducer::start(Bucket& bucket) {
  bucket.pending = m_ranks.startSum(bucket.flat);
}

void GradientReducer::finish() {
  torch::NoGradGuard noGrad;
  m_armed = false;
  // The buckets backward did not complete: a parameter without a gradient here adds zero.
  for (; m_nextToStart < m_buckets.size(); ++m_nextToStart) {
    Bucket& bucket = m_buckets[m_nextToStart];
    for (std::size_t k : bucket.members)
      if (!m_arrived[k]) slot(k).zero_();
    start(bucket);
  }
  // Last, the same on every rank: which parameters have a gradient on any rank.
  at::Tensor anywhere = torch::zeros({static_cast<std::int64_t>(m_params.size())}, torch::kDouble);
  auto flags = anywhere.accessor<double, 1>();
  for (std::size_t k = 0; k < m_params.size(); ++k)
    flags[static_cast<std::int64_t>(k)] = m_arrived[k] ? 1.0 : 0.0;
  PendingSum flagSum = m_ranks.startSum(anywhere);
  for (auto& bucket : m_buckets) m_ranks.finishSum(bucket.pending, "allreduce (gradients)");
  m_ranks.finishSum(flagSum, "allreduce (gradients)");
  for (std::size_t k = 0; k < m_params.size(); ++k) {
    at::Tensor p = m_params[k];
    if (flags[static_cast<std::int64_t>(k)] > 0) {
      const at::Tensor summed = slot(k).view(p.sizes());
      if (p.grad().defined())
        p.mutable_grad().copy_(summed);
      else
        p.mutable_grad() = summed.clone();
    }
    m_arrived[k] = 0;
  }
  for (auto& bucket : m_buckets) bucket.arrived = 0;
  m_nextToStart = 0;
}

}  // namespace attnlab::core
