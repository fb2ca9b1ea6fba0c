#pragma once

#include "core/config/config_choices.h"

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <string>

namespace attnlab::core {

/// What train.precision means on the device a run resolved to.
struct PrecisionPlan {
  Precision precision = Precision::Float32;
  bool autocast = false;                       ///< run forward passes under autocast
  c10::ScalarType autocastType = c10::kFloat;  ///< bfloat16 or float16 when autocast
  bool lossScaling = false;                    ///< float16: dynamic loss scale
  std::string note;  ///< for the run's events: what the setting does on this device
};

/// Checks `precision` against `device` and sets LibTorch's TF32 switches for the process (on
/// for tf32 on a GPU, off otherwise, so float32 means float32). On a GPU it also asks for
/// deterministic cuDNN and cuBLAS kernels (exact resume; docs/building.md lists the kernels
/// that stay non-deterministic). Throws ConfigError at train.precision naming the device when
/// the precision cannot run there: fp16 on the CPU, bf16 or tf32 on a GPU older than compute
/// capability 8.0.
PrecisionPlan applyPrecision(Precision precision, c10::Device device);

}  // namespace attnlab::core
