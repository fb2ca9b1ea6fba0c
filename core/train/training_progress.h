#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace attnlab::core {

/// What the engine reports once per logging interval (and after each evaluation). Values
/// are host numbers: the engine synchronises with the device once per interval only.
struct TrainingProgress {
  std::int64_t step = 0;  ///< completed optimiser steps
  std::int64_t totalSteps = 0;
  double loss = 0.0;      ///< mean training MLM loss over the interval (nats)
  double accuracy = 0.0;  ///< masked-token accuracy over the interval
  double learningRate = 0.0;
  double gradNorm = 0.0;           ///< before clipping
  double tokensPerSecond = 0.0;    ///< real (non-padding) tokens through forward+backward
  double elapsedSeconds = 0.0;     ///< since this process started training
  std::optional<double> evalLoss;  ///< set on evaluation steps
  std::optional<double> evalAccuracy;
};

/// Receives progress and events on the engine thread. Implementations must return
/// quickly (buffer and hand off; the GUI drains on its own thread).
class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  virtual void onProgress(const TrainingProgress& progress) = 0;
  /// Free-text milestones: data prepared, checkpoint written, resumed, stopped.
  virtual void onMessage(const std::string& message) = 0;
};

}  // namespace attnlab::core
