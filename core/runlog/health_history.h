#pragma once

// The attention-health series of a run log (docs/run-log.md, "Attention health") read back
// as one value: what the app's Health tab and the health figures draw. Torch-free, so the
// figures and the widgets read it without LibTorch.

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::core {

class RunLogReader;

/// The token classes of health/class_mass, in its order (core/health/attention_health.h).
inline const std::vector<std::string>& healthClassNames() {
  static const std::vector<std::string> names{"first", "cls", "sep", "punctuation", "other"};
  return names;
}

/// One [L, H] per-head quantity of the stream: rows by step, each L x H row-major.
struct HeadSeries {
  std::string name;  ///< "entropy_min", ...
  std::vector<std::vector<float>> rows;
};

/// Every health series of a log, by row (one row per logged step, the same steps for all).
struct HealthHistory {
  std::vector<std::int64_t> steps;
  std::int64_t layers = 0, heads = 0, classes = 0;
  /// [step][L * H * C]: mean mass a class's keys receive, per head.
  std::vector<std::vector<float>> classMass;
  std::vector<std::vector<float>> sinkRate;         ///< [step][C]
  std::vector<std::vector<float>> sinkRateByLayer;  ///< [step][L * C]
  /// The per-head series, in this order: top_key_mass, top_key_class, entropy_mean,
  /// entropy_min, collapsed_share, logit_max, spectral_norm.
  std::vector<HeadSeries> perHead;
  std::vector<std::vector<float>> massiveValue;      ///< [step][L * 3], largest first
  std::vector<std::vector<float>> massiveToken;      ///< [step][L * 3]: b * T + t
  std::vector<std::vector<float>> massiveDimension;  ///< [step][L * 3]
  std::vector<std::vector<float>> medianAbs;         ///< [step][L]
  std::vector<std::vector<float>> massiveRatio;      ///< [step][L]
  std::vector<std::vector<float>> rankResidual;      ///< [step][L]
  std::vector<std::vector<float>> meanCosine;        ///< [step][L]

  bool empty() const { return steps.empty(); }
  /// The per-head series called `name`, or nullptr.
  const HeadSeries* head(const std::string& name) const;
  /// The row of the largest logged step <= `step` (the first row when all are later); -1
  /// when empty.
  int rowAtOrBefore(std::int64_t step) const;
};

/// The names of HealthHistory::perHead, in its order.
const std::vector<std::string>& healthHeadSeriesNames();

/// True when the log declares the health series (logs before them, or log.health = false,
/// do not).
bool hasHealthSeries(const RunLogReader& log);
/// Reads every health series from row `firstRow` on (all by default), cut to the rows every
/// series has (a live log may be mid-append). Empty when the log has none. Throws RunLogError
/// when a series' shape disagrees with the others (naming the series and both shapes).
HealthHistory readHealthHistory(const RunLogReader& log, std::uint64_t firstRow = 0);

}  // namespace attnlab::core
