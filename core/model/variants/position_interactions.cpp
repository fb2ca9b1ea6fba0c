#include "core/model/variants/position_interactions.h"

#include <torch/torch.h>

#include <cmath>

namespace attnlab::core {
namespace {

// Keras' fan computation (Keras 2.2.4 _compute_fans): a 2-D shape has fan_in = rows and
// fan_out = columns; any other rank (the relative vector is 1-D) uses sqrt(numel) for both.
// The official code's parameters are per head, so the fans are those of one head's slice.
double glorotNormalStd(double fanIn, double fanOut) {
  return std::sqrt(2.0 / (fanIn + fanOut));
}

}  // namespace

PositionInteractionsImpl::PositionInteractionsImpl(int heads, int maxPositions, PositionMode mode,
                                                   bool symmetricRelative)
    : m_heads(heads), m_maxPositions(maxPositions), m_mode(mode), m_symmetric(symmetricRelative) {
  TORCH_CHECK(heads > 0, "PositionInteractions: heads must be positive, got ", heads);
  TORCH_CHECK(maxPositions > 0, "PositionInteractions: maxPositions must be positive, got ",
              maxPositions);
  if (mode == PositionMode::Absolute || mode == PositionMode::Both) {
    m_absolute = register_parameter("absolute", torch::empty({heads, maxPositions, maxPositions}));
  }
  if (mode == PositionMode::Relative || mode == PositionMode::Both) {
    const std::int64_t entries = symmetricRelative ? maxPositions : 2 * maxPositions - 1;
    m_relative = register_parameter("relative", torch::empty({heads, entries}));
  }
  resetParameters();
}

void PositionInteractionsImpl::resetParameters() {
  torch::NoGradGuard noGrad;
  if (m_absolute.defined()) {
    m_absolute.normal_(0.0, glorotNormalStd(m_maxPositions, m_maxPositions));
  }
  if (m_relative.defined()) {
    const double fan = std::sqrt(double(m_relative.size(1)));
    m_relative.normal_(0.0, glorotNormalStd(fan, fan));
  }
}

torch::Tensor PositionInteractionsImpl::forward(std::int64_t length) {
  TORCH_CHECK(length >= 1 && length <= m_maxPositions, "PositionInteractions: length ", length,
              " is outside [1, ", m_maxPositions, "] (max_positions)");
  torch::Tensor bias;
  if (m_absolute.defined()) {
    // Slices of the full matrix: positions are absolute, so a shorter sequence uses the
    // top-left block and its gradient touches only that block.
    bias = m_absolute.slice(1, 0, length).slice(2, 0, length);
  }
  if (m_relative.defined()) {
    const auto options = torch::TensorOptions().dtype(torch::kLong).device(m_relative.device());
    const auto pos = torch::arange(length, options);
    auto offset = pos.unsqueeze(1) - pos.unsqueeze(0);  // [T, T], i - j
    auto index = m_symmetric ? offset.abs() : offset + (m_maxPositions - 1);
    // A gather through one index_select: its backward is an index_add, so every diagonal's
    // gradient is the sum over the cells that share it, and unused offsets get zero.
    auto relative = m_relative.index_select(1, index.reshape({-1})).view({m_heads, length, length});
    bias = bias.defined() ? bias + relative : relative;
  }
  return bias;
}

}  // namespace attnlab::core
