#pragma once

// The attention-health figures: the health/ series a run logs while it trains (docs/run-log.md,
// "Attention health"), read back torch-free as a core::HealthHistory
// (core/runlog/health_history.h) and drawn once for `attnlab-cli export` and the app (figure
// names in figure_catalog.cpp):
//   health-sink-rate       sink rate per token class against step, one line per class, y in
//                          [0, 1] (Gu et al., ICLR 2025)
//   health-massive         per layer the top-1, top-2, top-3 |h| and the median |h| of the
//                          layer's output as bars on a log scale, at one logged step (Sun et
//                          al., COLM 2024, Fig. 1)
//   health-entropy-logits  the minimum row entropy (nats) and S_max (the largest pre-softmax
//                          logit) per head against step, two panels (Zhai et al., ICML 2023)
// The makers (figure_makers.h) refuse a run whose log has no health/ series with a
// FigureInputError naming the log and the setting that writes them (log.health = true).

#include <memory>
#include <optional>
#include <string>

namespace attnlab::core {
struct HealthHistory;
}
namespace attnlab::widgets {
class PlotWidget;
class ScatterPlot;
}  // namespace attnlab::widgets

namespace attnlab::figures {

/// One panel against the step: health/sink_rate, one line per class (first, cls, sep,
/// punctuation, other), the y axis fixed to [0, 1]. `epsilon` (log.health_sink_epsilon) goes
/// into the axis label when known.
void drawSinkRate(widgets::ScatterPlot& plot, const core::HealthHistory& health,
                  std::optional<double> epsilon);

/// Two panels against the step: health/entropy_min (nats) and health/logit_max, one line per
/// head. Up to 8 heads each has its own colour and a legend entry L<l>H<h>; more are coloured
/// by layer with one legend entry per layer.
void drawEntropyLogits(widgets::ScatterPlot& plot, const core::HealthHistory& health);

/// The bars of row `row` of health/massive_value and health/median_abs: per layer four bars
/// (top-1, top-2, top-3, median |h|) on a logarithmic y axis, the top-1 value written above
/// its bar. The plot's title is left to the caller.
std::unique_ptr<widgets::PlotWidget> massiveActivationPlot(const core::HealthHistory& health,
                                                           int row);

/// The names of the bar series of massiveActivationPlot, in drawing order.
inline constexpr const char* kMassiveBarNames[4] = {"top-1 |h|", "top-2 |h|", "top-3 |h|",
                                                    "median |h|"};

}  // namespace attnlab::figures
