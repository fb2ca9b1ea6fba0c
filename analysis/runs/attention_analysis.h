#pragma once

#include "analysis/attention/attention_statistics.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/evaluation_set.h"

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

/// Progress: the phase ("evaluation set", "snapshots", "checkpoint 500"), done and total.
using AnalysisProgress =
    std::function<void(const std::string& phase, std::int64_t done, std::int64_t total)>;

/// Runs the model of one checkpoint over the evaluation set in batches (memory does not grow
/// with its size) and computes the attention statistics; adds the variants' logged series and
/// the statistics over training. Throws attnlab::Error subclasses naming what failed.
AnalysisReport analyzeRun(const AnalyzeOptions& options, const AnalysisProgress& progress = {});

}  // namespace attnlab::analysis
