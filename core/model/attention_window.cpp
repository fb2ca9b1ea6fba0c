#include "core/model/attention_window.h"

#include "core/config/run_config.h"
#include "core/model/masked_lm.h"

#include <torch/torch.h>

namespace attnlab::core {

at::Tensor windowBias(std::int64_t length, int window, at::ScalarType dtype, at::Device device) {
  const auto positions = torch::arange(length, torch::TensorOptions().device(device));
  const auto distance = (positions.unsqueeze(1) - positions.unsqueeze(0)).abs();  // [T, T]
  const auto outside = distance.gt(window / 2).to(dtype);
  return (outside * kMaskedLogit).view({1, 1, length, length});
}

}  // namespace attnlab::core
