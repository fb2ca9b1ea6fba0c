#include "core/model/rotary_positions.h"

#include <torch/torch.h>

namespace attnlab::core {

RotaryPositions::RotaryPositions(int headSize, double theta)
    : m_headSize(headSize), m_theta(theta) {}

at::Tensor rotateHalf(const at::Tensor& x) {
  const auto half = x.size(-1) / 2;
  return torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

std::pair<at::Tensor, at::Tensor> RotaryPositions::apply(const at::Tensor& q, const at::Tensor& k,
                                                         at::Tensor& cos, at::Tensor& sin) const {
  const auto length = q.size(2);
  if (!cos.defined() || cos.size(0) != length || cos.scalar_type() != q.scalar_type() ||
      cos.device() != q.device()) {
    // float32 angles as transformers computes them; float64 for a float64 model (the golden
    // test), whose 1e-10 check float32 angles would miss by 1e-7.
    const auto angleType = q.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat;
    const auto floats = torch::TensorOptions().dtype(angleType).device(q.device());
    // inv_freq_i = 1 / theta^(2i / d), i < d/2; the angle of position t is t * inv_freq_i.
    const auto exponents = torch::arange(0, m_headSize, 2, floats) / double(m_headSize);
    const auto inverse = 1.0 / torch::pow(torch::scalar_tensor(m_theta, floats), exponents);
    const auto angles = torch::outer(torch::arange(length, floats), inverse);  // [T, d/2]
    const auto both = torch::cat({angles, angles}, -1);                        // [T, d]
    cos = both.cos().to(q.scalar_type());
    sin = both.sin().to(q.scalar_type());
  }
  return {q * cos + rotateHalf(q) * sin, k * cos + rotateHalf(k) * sin};
}

std::pair<at::Tensor, at::Tensor> RotaryPositions::apply(const at::Tensor& q,
                                                         const at::Tensor& k) const {
  at::Tensor cos, sin;
  return apply(q, k, cos, sin);
}

}  // namespace attnlab::core
