#pragma once

// The Health tab's alarms (docs/app.md, "Health tab"), found in a run's health history with
// the thresholds of the app's settings: entropy collapse, a massive activation, a jump of a
// sink rate. Plain functions of the history, so every alarm is found again the same way
// whenever the thresholds change or the run is opened again.

#include "app/gui/app_settings.h"
#include "core/runlog/health_history.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace attnlab::app {

struct HealthAlarm {
  enum class Kind { EntropyCollapse, MassiveActivation, SinkRateJump };
  Kind kind = Kind::EntropyCollapse;
  int row = 0;              ///< the history's row
  std::int64_t step = 0;    ///< its step
  int layer = 0, head = 0;  ///< the head to inspect (for a layer or a class alarm: its top head)
  int sinkClass = -1;       ///< SinkRateJump: the token class
  QString text;             ///< one line for the console and the alarm list
  /// What identifies it (kind, step, where) so that it is told once.
  QString key() const;
};

/// "entropy collapse", "massive activation", "sink-rate jump".
QString healthAlarmName(HealthAlarm::Kind kind);

/// Every alarm of `history` under `settings`, by step:
/// - entropy collapse: a head's entropy_min under entropyCollapseNats at a row where its
///   logit_max rose since the previous row (told once until its entropy_min is back at or
///   above the threshold);
/// - massive activation: a layer's massive_ratio over massiveRatio (once until it is back
///   at or under it); the head to inspect is the layer's head of largest top key mass;
/// - sink-rate jump: a class's sink_rate up by more than sinkRateJump since the previous
///   row; the head to inspect is the one whose mass on that class is largest.
std::vector<HealthAlarm> findHealthAlarms(const core::HealthHistory& history,
                                          const HealthAlarmSettings& settings);

}  // namespace attnlab::app
