#pragma once

// Small checks the engine tests share: how far two tensors are apart, and whether LibTorch
// refused a call (with its message).

#include <torch/torch.h>

#include <functional>
#include <string>

namespace attnlab::tests {

/// Largest absolute difference between two tensors of one shape, in double precision.
inline double maxAbsDiff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.detach().to(torch::kFloat64) - b.detach().to(torch::kFloat64))
      .abs()
      .max()
      .item<double>();
}

/// Runs f and reports whether it threw a c10::Error, keeping the message.
inline bool throwsTorchError(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const c10::Error& e) {
    if (message != nullptr) *message = e.what_without_backtrace();
    return true;
  }
  return false;
}

}  // namespace attnlab::tests
