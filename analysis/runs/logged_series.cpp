#include "analysis/runs/logged_series.h"

#include "core/runlog/run_log_reader.h"

#include <algorithm>
#include <array>

namespace attnlab::analysis {

namespace {

struct KnownSeries {
  const char* name;
  const char* description;
  const char* unit;
};

// The per-layer quantities of seed-facts section 6 and the temperature variant.
constexpr std::array<KnownSeries, 5> kVariantSeries = {{
    {"asa/mask_proportion", "ASA: share of real (query, key) cells the adversary masks, per layer",
     "fraction"},
    {"squeeze/weights", "SesameBERT: excitation output s_l per encoder layer (batch mean)",
     "weight"},
    {"temperature/q", "Learned temperature of the queries, per layer and head", "temperature"},
    {"temperature/k", "Learned temperature of the keys, per layer and head", "temperature"},
    {"temperature/v", "Learned temperature of the values, per layer and head", "temperature"},
}};

}  // namespace

std::vector<LoggedSeries> readVariantSeries(const std::filesystem::path& runLog) {
  core::RunLogReader reader(runLog.string());
  const auto names = reader.seriesNames();
  std::vector<LoggedSeries> out;
  for (const auto& known : kVariantSeries) {
    if (std::find(names.begin(), names.end(), known.name) == names.end()) continue;
    const auto series = reader.series(known.name);
    if (series.steps.empty()) continue;
    LoggedSeries s;
    s.name = known.name;
    s.description = known.description;
    s.unit = known.unit;
    s.steps = series.steps;
    s.innerShape = series.innerShape;
    s.values = series.values;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace attnlab::analysis
