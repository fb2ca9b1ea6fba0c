#pragma once

// The attention-health stream of a run (docs/run-log.md, "Attention health"): the probe
// batch's health (core/health) at every log.health_every step (default: every
// train.log_every) and at steps 0 and the last, as series under health/ in the run log.

#include "core/config/run_config.h"
#include "core/health/attention_health.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::core {

class AttentionSnapshots;
class MaskedLanguageModelImpl;
class RunLogWriter;
struct RunLogSchema;

/// The series and their inner shapes (L layers, H heads, C = kSinkClasses classes):
///   health/class_mass [L, H, C]    health/sink_rate [C]       health/sink_rate_by_layer [L, C]
///   health/top_key_mass [L, H]     health/top_key_class [L, H]
///   health/entropy_mean [L, H]     health/entropy_min [L, H]  health/collapsed_share [L, H]
///   health/logit_max [L, H]        health/spectral_norm [L, H]
///   health/massive_value [L, 3]    health/massive_token [L, 3] (b * T + t of the probe batch)
///   health/massive_dimension [L, 3]
///   health/median_abs [L]  health/massive_ratio [L]  health/rank_residual [L]
///   health/mean_cosine [L]
class HealthStream {
 public:
  /// Uses the snapshots' probe batch (the same sequences the attention snapshots show).
  HealthStream(const RunConfig& config, const AttentionSnapshots& probe);

  bool enabled() const { return m_enabled; }
  /// Every log.health_every steps (0: train.log_every), and the last step.
  bool due(std::int64_t step) const;
  void declare(RunLogSchema& schema) const;
  /// One evaluation-mode pass of the probe batch; appends every series at `step`.
  void write(MaskedLanguageModelImpl& model, const c10::Device& device, std::int64_t step,
             RunLogWriter& log) const;

 private:
  RunConfig m_config;
  bool m_enabled = false;
  at::Tensor m_ids, m_mask, m_classes;  // [B, T]
};

/// The probe batch's health of `model` now (no logging): what write() appends.
AttentionHealth probeHealth(MaskedLanguageModelImpl& model, const at::Tensor& ids,
                            const at::Tensor& mask, const at::Tensor& classes,
                            const HealthSettings& settings);

}  // namespace attnlab::core
