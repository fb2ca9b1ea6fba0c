#include "core/runlog/health_history.h"

#include "core/errors/error.h"
#include "core/runlog/run_log_reader.h"

#include <algorithm>

namespace attnlab::core {

namespace {

constexpr const char* kProbe = "health/entropy_mean";

/// One series' rows as vectors, checking its inner shape against `expected`.
std::vector<std::vector<float>> rowsOf(const RunLogReader& log, const std::string& name,
                                       const std::vector<std::int64_t>& expected,
                                       std::uint64_t firstRow, std::size_t rows) {
  const TensorSeries s = log.series("health/" + name, firstRow, rows);
  if (s.innerShape != expected) {
    auto text = [](const std::vector<std::int64_t>& shape) {
      std::string t = "[";
      for (std::size_t i = 0; i < shape.size(); ++i)
        t += (i ? ", " : "") + std::to_string(shape[i]);
      return t + "]";
    };
    throw RunLogError(log.path(), "health/" + name + " has shape " + text(s.innerShape) +
                                      " per step where " + text(expected) + " was expected");
  }
  std::size_t width = 1;
  for (auto d : expected) width *= static_cast<std::size_t>(d);
  std::vector<std::vector<float>> out(std::min(rows, s.steps.size()));
  for (std::size_t r = 0; r < out.size(); ++r)
    out[r].assign(s.values.begin() + r * width, s.values.begin() + (r + 1) * width);
  return out;
}

/// The rows every health series has now, from `firstRow` on.
std::size_t commonRows(const RunLogReader& log, std::uint64_t firstRow) {
  std::uint64_t rows = ~std::uint64_t{0};
  for (const auto& name : log.seriesNames())
    if (name.rfind("health/", 0) == 0) rows = std::min(rows, log.seriesRows(name));
  return rows > firstRow ? static_cast<std::size_t>(rows - firstRow) : 0;
}

}  // namespace

const std::vector<std::string>& healthHeadSeriesNames() {
  static const std::vector<std::string> names{"top_key_mass", "top_key_class",   "entropy_mean",
                                              "entropy_min",  "collapsed_share", "logit_max",
                                              "spectral_norm"};
  return names;
}

const HeadSeries* HealthHistory::head(const std::string& name) const {
  for (const auto& s : perHead)
    if (s.name == name) return &s;
  return nullptr;
}

int HealthHistory::rowAtOrBefore(std::int64_t step) const {
  if (steps.empty()) return -1;
  const auto it = std::upper_bound(steps.begin(), steps.end(), step);
  return it == steps.begin() ? 0 : static_cast<int>(it - steps.begin()) - 1;
}

bool hasHealthSeries(const RunLogReader& log) {
  const auto names = log.seriesNames();
  return std::find(names.begin(), names.end(), kProbe) != names.end();
}

HealthHistory readHealthHistory(const RunLogReader& log, std::uint64_t firstRow) {
  HealthHistory h;
  if (!hasHealthSeries(log)) return h;
  const std::size_t rows = commonRows(log, firstRow);
  const TensorSeries probe = log.series(kProbe, firstRow, rows);
  if (probe.innerShape.size() != 2)
    throw RunLogError(log.path(), std::string(kProbe) + " is not [layers, heads] per step");
  h.layers = probe.innerShape[0];
  h.heads = probe.innerShape[1];
  h.classes = static_cast<std::int64_t>(healthClassNames().size());
  h.steps.assign(probe.steps.begin(), probe.steps.begin() + std::min(rows, probe.steps.size()));
  const std::int64_t L = h.layers, H = h.heads, C = h.classes;
  h.classMass = rowsOf(log, "class_mass", {L, H, C}, firstRow, rows);
  h.sinkRate = rowsOf(log, "sink_rate", {C}, firstRow, rows);
  h.sinkRateByLayer = rowsOf(log, "sink_rate_by_layer", {L, C}, firstRow, rows);
  for (const auto& name : healthHeadSeriesNames())
    h.perHead.push_back({name, rowsOf(log, name, {L, H}, firstRow, rows)});
  h.massiveValue = rowsOf(log, "massive_value", {L, 3}, firstRow, rows);
  h.massiveToken = rowsOf(log, "massive_token", {L, 3}, firstRow, rows);
  h.massiveDimension = rowsOf(log, "massive_dimension", {L, 3}, firstRow, rows);
  h.medianAbs = rowsOf(log, "median_abs", {L}, firstRow, rows);
  h.massiveRatio = rowsOf(log, "massive_ratio", {L}, firstRow, rows);
  h.rankResidual = rowsOf(log, "rank_residual", {L}, firstRow, rows);
  h.meanCosine = rowsOf(log, "mean_cosine", {L}, firstRow, rows);
  return h;
}

}  // namespace attnlab::core
