#pragma once

// The bookkeeping outside the fenced step: sums what the steps of one logging interval
// measured (on the device) and, once per interval, turns it into run-log rows and a
// progress event with one host synchronisation.

#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/train/training_progress.h"

#include <ATen/core/Tensor.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnlab::core {

class MaskedLanguageModelImpl;
class RunLogWriter;
struct StepMeasurements;

/// The scalars every run logs besides the mechanisms' (RunLogSchema::defaultScalarNames()
/// plus these).
inline constexpr const char* kTrainAccuracyScalar = "train/accuracy";
inline constexpr const char* kTotalLossScalar = "train/total_loss";

class IntervalMetrics {
 public:
  /// `quantities`: what the enabled mechanisms log (loggedQuantities(config)), plus the
  /// total loss when the objective adds terms.
  IntervalMetrics(const RunConfig& config, std::vector<LoggedQuantity> quantities);

  /// Adds one step's measurements (device tensors; no synchronisation).
  void add(const StepMeasurements& m);

  /// Writes the interval's rows at step `step` (train/loss, accuracy, learning rate, grad
  /// norm of the last step, tokens/s, each mechanism's quantities), returns the progress
  /// event and starts a new interval. `elapsedSeconds`: since training started.
  TrainingProgress flush(std::int64_t step, MaskedLanguageModelImpl& model, RunLogWriter& log,
                         double elapsedSeconds);

  const std::vector<LoggedQuantity>& quantities() const { return m_quantities; }

 private:
  void reset();

  RunConfig m_config;
  std::vector<const AttentionMechanism*> m_mechanisms;  // the enabled ones
  std::vector<LoggedQuantity> m_quantities;
  at::Tensor m_mlmLossSum, m_correct, m_predicted, m_lastGradNorm;
  double m_lastLearningRate = 0.0;
  std::int64_t m_tokens = 0;
  std::int64_t m_microBatches = 0;
  QuantityValues m_sums;
  std::chrono::steady_clock::time_point m_start;
};

}  // namespace attnlab::core
