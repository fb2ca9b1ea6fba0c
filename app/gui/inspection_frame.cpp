#include "app/gui/inspection_frame.h"

namespace attnlab::app {

const float* InspectionFrame::headData(int layer, int head, bool fromScores) const {
  const auto& shared = fromScores ? scores : probabilities;
  if (layer < 0 || head < 0 || layer >= static_cast<int>(shared.size()) || head >= heads ||
      !shared[static_cast<std::size_t>(layer)])
    return nullptr;
  const std::size_t cells = static_cast<std::size_t>(length) * length;
  return shared[static_cast<std::size_t>(layer)].get() + static_cast<std::size_t>(head) * cells;
}

std::vector<const float*> InspectionFrame::headPointers(bool fromScores) const {
  std::vector<const float*> out;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) {
      const float* p = headData(l, h, fromScores);
      if (!p) return {};
      out.push_back(p);
    }
  return out;
}

widgets::Matrix InspectionFrame::head(int layer, int head, bool fromScores) const {
  const float* first = headData(layer, head, fromScores);
  if (!first) return {};
  return widgets::Matrix(
      length, length, std::vector<float>(first, first + static_cast<std::size_t>(length) * length));
}

widgets::Matrix InspectionFrame::asaMask(int layer) const {
  if (!asaMasks || layer < 0 || layer >= layers) return {};
  const std::size_t cells = static_cast<std::size_t>(length) * length;
  const float* first = asaMasks.get() + static_cast<std::size_t>(layer) * cells;
  return widgets::Matrix(length, length, std::vector<float>(first, first + cells));
}

}  // namespace attnlab::app
