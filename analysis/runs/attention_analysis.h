#pragma once

#include "analysis/attention/attention_statistics.h"
#include "analysis/runs/evaluation_set.h"
#include "analysis/runs/logged_series.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::analysis {

struct AnalyzeOptions {
  std::filesystem::path run;         ///< run directory or checkpoint file
  std::optional<std::int64_t> step;  ///< checkpoint step; latest when empty
  EvaluationSpec evaluation;         ///< validation split by default
  StatisticsOptions statistics;
  bool overSnapshots = true;     ///< statistics of the log's attention snapshots, per step
  bool overCheckpoints = false;  ///< the evaluation set under every checkpoint (slow)
};

/// Medians per head at one point of training.
struct TrainingStatisticsPoint {
  std::string source;  ///< "snapshot" (the log's probe batch) or "checkpoint" (evaluation set)
  std::int64_t step = 0;
  std::int64_t sequences = 0;
  std::vector<double> medianEntropy;      ///< [L*H], nats
  std::vector<double> medianAdjacentJsd;  ///< [(L-1)*H], in the report's JSD unit
};

/// Everything `attnlab-cli analyze` reports.
struct AnalysisReport {
  std::string runDir;
  std::string runName;
  std::string checkpoint;
  std::int64_t step = 0;
  std::vector<std::int64_t> availableSteps;
  std::string evaluationKind;         ///< "validation" or "text"
  std::string evaluationDescription;  ///< what and how much
  std::int64_t evaluationSequences = 0;
  int maxLength = 0;
  std::string configToml;  ///< the checkpoint's configuration
  AttentionStatisticsResult statistics;
  std::vector<LoggedSeries> variantSeries;
  std::vector<TrainingStatisticsPoint> overTraining;  ///< by source, then step
  std::vector<SkippedLine> skipped;
  double seconds = 0;
};

/// Progress: the phase ("evaluation set", "snapshots", "checkpoint 500"), done and total.
using AnalysisProgress =
    std::function<void(const std::string& phase, std::int64_t done, std::int64_t total)>;

/// Runs the model of one checkpoint over the evaluation set in batches (memory does not grow
/// with its size) and computes the attention statistics; adds the variants' logged series and
/// the statistics over training. Throws attnlab::Error subclasses naming what failed.
AnalysisReport analyzeRun(const AnalyzeOptions& options, const AnalysisProgress& progress = {});

}  // namespace attnlab::analysis
