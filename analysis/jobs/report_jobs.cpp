#include "analysis/jobs/report_jobs.h"

#include "analysis/report/head_comparison_report.h"
#include "analysis/report/report_files.h"
#include "analysis/report/report_layout.h"
#include "analysis/runs/run_selection.h"

#include <system_error>

namespace attnlab::analysis {

namespace fs = std::filesystem;

namespace {
/// Settles the folder (checked writable before the work), runs `work` and `write`; on any
/// failure removes the folder when the job made it and it is still empty.
template <class Report, class Work, class Write>
ReportJobResult<Report> runJob(const fs::path& folder, Work work, Write write,
                               const std::atomic<bool>* cancel) {
  std::error_code ec;
  const bool existed = fs::exists(folder, ec);
  prepareReportFolder(folder);
  try {
    ReportJobResult<Report> result{work(), folder, {}};
    throwIfCancelled(cancel, "writing the report");
    result.files = write(result.report, folder);
    return result;
  } catch (...) {
    if (!existed) fs::remove(folder, ec);  // removes only an empty folder
    throw;
  }
}
}  // namespace

ReportJobResult<AnalysisReport> runAnalysisJob(AnalyzeOptions options, const fs::path& out,
                                               const AnalysisProgress& progress,
                                               const std::atomic<bool>* cancel) {
  // The checkpoint is chosen once: a run still training may write a newer one meanwhile.
  const auto selected = selectCheckpoint(options.run, options.step);
  options.step = selected.step;
  const fs::path folder =
      out.empty() ? reportFolder(selected.runDir, ReportKind::Attention, selected.step) : out;
  return runJob<AnalysisReport>(
      folder, [&] { return analyzeRun(options, progress, cancel); },
      [](const AnalysisReport& r, const fs::path& f) { return writeAnalysisReport(r, f); }, cancel);
}

ReportJobResult<CorefProbeReport> runProbeJob(CorefProbeOptions options, const fs::path& out,
                                              const CorefProgress& progress,
                                              const std::atomic<bool>* cancel) {
  const auto selected = selectCheckpoint(options.run, options.step);
  options.step = selected.step;
  const fs::path folder =
      out.empty() ? reportFolder(selected.runDir, ReportKind::Coref, selected.step) : out;
  return runJob<CorefProbeReport>(
      folder, [&] { return probeCoreference(options, progress, cancel); },
      [](const CorefProbeReport& r, const fs::path& f) { return writeCorefReport(r, f); }, cancel);
}

ReportJobResult<HeadComparison> runHeadComparisonJob(CompareHeadsOptions options,
                                                     const fs::path& out,
                                                     const AnalysisProgress& progress,
                                                     const std::atomic<bool>* cancel) {
  const auto a = selectCheckpoint(options.runA, options.stepA);
  const auto b = selectCheckpoint(options.runB, options.stepB);
  // The files chosen, so compareHeads reads these two whatever the runs write meanwhile.
  options.runA = a.checkpoint;
  options.runB = b.checkpoint;
  options.stepA.reset();
  options.stepB.reset();
  const fs::path folder = out.empty() ? comparisonFolder(a.runDir, a.step, b.runDir, b.step) : out;
  return runJob<HeadComparison>(
      folder, [&] { return compareHeads(options, progress, cancel); },
      [](const HeadComparison& r, const fs::path& f) { return writeHeadComparison(r, f); }, cancel);
}

}  // namespace attnlab::analysis
