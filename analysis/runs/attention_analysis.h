#pragma once

#include "analysis/attention/attention_statistics.h"
#include "analysis/runs/analysis_control.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/beyond_weights_pass.h"
#include "analysis/runs/evaluation_set.h"
#include "analysis/runs/head_analysis.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
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
  /// The corpus summaries of rollout, norms and the logit lens (the analysed checkpoint's
  /// evaluation set only, not the snapshots or the other checkpoints).
  BeyondWeightsOptions beyond;
  /// Head importance, single-head ablation and pruning curves (Michel et al. 2019) on the
  /// analysed checkpoint's evaluation set.
  bool heads = false;
  HeadAnalysisOptions headOptions;
};

/// Runs the model of one checkpoint over the evaluation set in batches (memory does not grow
/// with its size) and computes the attention statistics; adds the variants' logged series and
/// the statistics over training. Throws attnlab::Error subclasses naming what failed.
///
/// `progress` is told each phase of analysis_control.h (loading the checkpoint, building the
/// evaluation set, sequences analysed, snapshots, other checkpoints). Setting `*cancel` from
/// any thread makes it throw attnlab::Cancelled at the next check: between batches, snapshot
/// rows and checkpoints, between the data pipeline's phases, every few hundred lines of an
/// evaluation text, before and after loading a checkpoint. So a cancel takes effect within
/// one forward pass, not at the end. It writes no report itself (the writers run after it
/// returns), so a cancelled analysis leaves none, partial or whole; the only files it may
/// write are the validation split's data cache (run/cache), each complete or absent.
AnalysisReport analyzeRun(const AnalyzeOptions& options, const AnalysisProgress& progress = {},
                          const std::atomic<bool>* cancel = nullptr);

}  // namespace attnlab::analysis
