#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/pimpl.h>

namespace attnlab::core {

/// Dropout whose CPU mask comes from a counter-based generator: element i is kept when
/// splitmix64(seed + i) says so, with one 64-bit seed drawn from LibTorch's default CPU
/// generator per call (the thread's engine generator when a run installed one, see
/// core/runtime/engine_random.h). LibTorch's own CPU bernoulli draws one Mersenne-Twister
/// number at a time on one thread (~30 ms per 4 M elements here); this fills the mask in
/// parallel, about ten times faster, and the result does not depend on the thread count.
/// Because the seed comes from that generator, checkpointing its state still makes resume
/// exact. On CUDA it defers to torch::dropout.
class FastDropoutImpl : public torch::nn::Cloneable<FastDropoutImpl> {
 public:
  explicit FastDropoutImpl(double p = 0.5);
  void reset() override {}
  torch::Tensor forward(const torch::Tensor& x);
  double p() const { return m_p; }

 private:
  double m_p;
};
TORCH_MODULE(FastDropout);

/// The mask itself: a float tensor shaped like `like`, each element 0 with probability
/// `p` and 1 / (1 - p) otherwise, from a seed drawn from the default CPU generator.
torch::Tensor dropoutMask(const torch::Tensor& like, double p);

}  // namespace attnlab::core
