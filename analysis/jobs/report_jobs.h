#pragma once

// One analysis, probe or head comparison as a job, the same for `attnlab-cli analyze` /
// `probe coref` / `compare --heads` and the app's Run analysis / Run probe / Compare heads:
// pick the checkpoint(s), settle and check the report folder before the work (which can take
// hours), do it, write the report. A job that fails or is cancelled removes the report folder
// it made when that is still empty, and never leaves a partial report (the writers stage
// their files). The query-key map, which writes no report, is query_key_map_job.h.

#include "analysis/runs/analysis_control.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/attention_analysis.h"
#include "analysis/runs/coref_probe_report.h"
#include "analysis/runs/coref_probe_run.h"
#include "analysis/runs/head_comparison.h"

#include <atomic>
#include <filesystem>
#include <vector>

namespace attnlab::analysis {

/// What a job wrote: the report, its folder and files.
template <class Report>
struct ReportJobResult {
  Report report;
  std::filesystem::path folder;
  std::vector<std::filesystem::path> files;
};

/// analyzeRun of `options` written to `out`, or to reportFolder(run, Attention, step) when
/// `out` is empty. Throws what analyzeRun, the folder check or the writer throw.
ReportJobResult<AnalysisReport> runAnalysisJob(AnalyzeOptions options,
                                               const std::filesystem::path& out,
                                               const AnalysisProgress& progress = {},
                                               const std::atomic<bool>* cancel = nullptr);

/// probeCoreference of `options` written to `out`, or to reportFolder(run, Coref, step).
ReportJobResult<CorefProbeReport> runProbeJob(CorefProbeOptions options,
                                              const std::filesystem::path& out,
                                              const CorefProgress& progress = {},
                                              const std::atomic<bool>* cancel = nullptr);

/// compareHeads of `options` written to `out`, or to comparisonFolder(run A, step A, run B,
/// step B) when `out` is empty. Both checkpoints are chosen once, before the folder is
/// settled (a run still training may write a newer one meanwhile).
ReportJobResult<HeadComparison> runHeadComparisonJob(CompareHeadsOptions options,
                                                     const std::filesystem::path& out,
                                                     const AnalysisProgress& progress = {},
                                                     const std::atomic<bool>* cancel = nullptr);

}  // namespace attnlab::analysis
