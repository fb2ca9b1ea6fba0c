#pragma once

// What transformers computed for a model-folder fixture (tests/fixtures/hf-*/
// expected.safetensors, written by the fixture's make_fixture.py), read as LibTorch tensors.

#include "core/pretrained/safetensors_file.h"

#include <torch/torch.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace attnlab::tests {

/// Tensor `name` of `file` (I64 as int64, anything else as float32); throws naming it when the
/// file lacks it.
inline torch::Tensor expectedTensor(const core::SafetensorsFile& file, const std::string& name) {
  const auto* e = file.find(name);
  if (e == nullptr) throw std::runtime_error("expected.safetensors lacks " + name);
  const auto bytes = file.bytes(*e);
  auto t = torch::empty(e->shape,
                        e->dtype == core::SafetensorsDtype::I64 ? torch::kLong : torch::kFloat);
  std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
  return t;
}

}  // namespace attnlab::tests
