#pragma once

// What the Health tab draws, taken from what the run's watcher already read: the health/
// series of the run log (docs/run-log.md, "Attention health") arrive in the session's layer
// series with every other series, and are gathered here, row by row as they come, into a
// core::HealthHistory. Nothing here reads a file: the reads stay on the log-reader thread.

#include "app/gui/run_session.h"
#include "core/runlog/health_history.h"
#include "widgets/plots/plot_data.h"

#include <QString>
#include <QVector>

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace attnlab::app {

/// The per-head quantities the heatmap and the trends show.
enum class HealthQuantity {
  SinkMass,        ///< health/class_mass of one token class
  TopKeyMass,      ///< health/top_key_mass
  EntropyMean,     ///< health/entropy_mean
  EntropyMin,      ///< health/entropy_min
  CollapsedShare,  ///< health/collapsed_share
  LogitMax,        ///< health/logit_max (S_max)
  SpectralNorm,    ///< health/spectral_norm
  /// spectral_norm_rotary: under rotary positions, the largest over the offsets; only a
  /// measured report has it (Measure health), never the run log.
  RotarySpectralNorm,
};

struct HealthQuantityInfo {
  HealthQuantity quantity;
  QString label;          ///< the Quantity box's entry
  QString axisName;       ///< the colour scale's and the trend's y axis' quantity
  QString unit;           ///< "nats", "fraction of attention", ... (empty: none)
  QString series;         ///< the HealthHistory per-head series ("class_mass" for SinkMass)
  bool fraction = false;  ///< bounded by 0 and 1 (the colour scale is fixed to it)
  QString meaning;        ///< one line for tooltips
};

/// Whether `history` holds `quantity` (every log has all but RotarySpectralNorm).
bool historyHas(const core::HealthHistory& history, HealthQuantity quantity);

/// Every quantity, in the Quantity box's order.
const QVector<HealthQuantityInfo>& healthQuantities();
const HealthQuantityInfo& healthQuantityInfo(HealthQuantity quantity);
/// "sink mass (first)", "minimum entropy (nats)": the quantity with its class and unit.
QString healthValueLabel(HealthQuantity quantity, int sinkClass);

/// True when the session holds health series (their first rows arrived).
bool sessionHasHealth(const std::map<QString, LayerSeries>& series);
/// Appends to `history` the rows the session's health series hold beyond it (the rows every
/// series has: a live log may be mid-append). Returns the rows added; -1 with `error` set
/// when a series is missing or its shape disagrees with the others.
int appendHealthRows(const std::map<QString, LayerSeries>& series, core::HealthHistory& history,
                     QString* error);

/// `quantity` at row `row` as layers x heads (sinkClass: the class of SinkMass).
widgets::Matrix headValuesAt(const core::HealthHistory& history, HealthQuantity quantity,
                             int sinkClass, int row);
/// One head's `quantity` over every row.
std::vector<double> headTrend(const core::HealthHistory& history, HealthQuantity quantity,
                              int sinkClass, int layer, int head);
/// The finite range of `quantity` over every row (0..1 for fractions): the heatmap's colours
/// keep their meaning along the step slider.
std::pair<double, double> healthValueRange(const core::HealthHistory& history,
                                           HealthQuantity quantity, int sinkClass);
/// The steps of `history` as doubles (the plots' x).
std::vector<double> healthSteps(const core::HealthHistory& history);
/// One per-layer series ([step][L]) of layer `layer` over every row.
std::vector<double> layerTrend(const std::vector<std::vector<float>>& rows, int layer);

/// Why a run shows no health series: log.health = false in its configuration, a log
/// written before the series existed, or (`live`) none logged yet.
QString whyNoHealth(const QString& configToml, bool live);

}  // namespace attnlab::app
