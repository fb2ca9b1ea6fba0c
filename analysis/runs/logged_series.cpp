#include "analysis/runs/logged_series.h"

#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/runlog/run_log_reader.h"

#include <algorithm>

namespace attnlab::analysis {

namespace {

/// The run's configuration from its log; when it cannot be read (a log from an older
/// version), every mechanism switched on, so any series the log holds is recognised.
core::RunConfig configOf(const core::RunLogReader& reader) {
  try {
    return core::parseRunConfig(reader.configToml(), "run log config");
  } catch (const ConfigError&) {
    core::RunConfig all;
    all.attention.guidance.enabled = true;
    all.attention.asa.enabled = true;
    all.attention.temperature = true;
    all.attention.squeeze.enabled = true;
    all.attention.outputGate = core::OutputGate::Head;
    all.attention.normalizer = core::Normalizer::Softmax1;
    all.attention.differential = true;
    return all;
  }
}

}  // namespace

std::vector<LoggedSeries> readVariantSeries(const std::filesystem::path& runLog) {
  core::RunLogReader reader(runLog.string());
  const auto names = reader.seriesNames();
  std::vector<LoggedSeries> out;
  // The per-layer quantities the mechanisms declare (docs/analysis.md#variants-logged-series);
  // their names, units and meanings come from the descriptors, not from a list here.
  for (const auto& q : core::loggedQuantities(configOf(reader))) {
    if (q.shape == core::LoggedShape::Scalar) continue;
    if (std::find(names.begin(), names.end(), q.name) == names.end()) continue;
    const auto series = reader.series(q.name);
    if (series.steps.empty()) continue;
    LoggedSeries s;
    s.name = q.name;
    s.description = q.meaning;
    s.unit = q.unit;
    s.steps = series.steps;
    s.innerShape = series.innerShape;
    s.values = series.values;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace attnlab::analysis
