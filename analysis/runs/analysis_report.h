#pragma once

// What `attnlab-cli analyze` reports, apart from how it is computed: the report writers
// (analysis/report) read these without the engine's headers.

#include "analysis/attention/attention_statistics.h"
#include "analysis/attention/beyond_weights_summaries.h"
#include "analysis/attention/skipped_data.h"
#include "analysis/runs/head_report.h"
#include "analysis/runs/logged_series.h"
#include "analysis/runs/run_selection.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::analysis {

/// The per-head statistics at one point of training (the distributions reduced to medians).
struct TrainingStatisticsPoint {
  std::string source;  ///< "snapshot" (the log's probe batch) or "checkpoint" (evaluation set)
  std::int64_t step = 0;
  std::int64_t sequences = 0;
  std::vector<double> medianEntropy;       ///< [L*H], nats
  std::vector<double> medianAdjacentJsd;   ///< [(L-1)*H], in the report's JSD unit
  std::vector<HeadSummary> headSummaries;  ///< [L*H]
  std::vector<double> guidanceDistance;    ///< [L*H*5], as AttentionStatisticsResult
};

/// Everything `attnlab-cli analyze` reports.
struct AnalysisReport {
  AnalysedCheckpoint source;
  std::vector<std::int64_t> availableSteps;
  std::string evaluationKind;         ///< "validation" or "text"
  std::string evaluationDescription;  ///< what and how much
  std::int64_t evaluationSequences = 0;
  int maxLength = 0;
  std::string configToml;  ///< the checkpoint's configuration
  AttentionStatisticsResult statistics;
  BeyondWeightsSummaries beyond;    ///< rollout, norms, logit lens (each absent when skipped)
  std::optional<HeadReport> heads;  ///< importance, ablation, pruning (analyze --heads)
  std::vector<LoggedSeries> variantSeries;
  std::vector<TrainingStatisticsPoint> overTraining;  ///< by source, then step
  std::vector<SkippedData> skipped;                   ///< evaluation text lines left out
  double seconds = 0;
};

}  // namespace attnlab::analysis
