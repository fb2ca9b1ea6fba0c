#include "app/cli/compare_command.h"

#include "analysis/jobs/report_jobs.h"
#include "analysis/report/head_comparison_report.h"
#include "analysis/runs/head_comparison.h"
#include "app/cli/command_errors.h"
#include "app/cli/progress_bar.h"
#include "app/cli/task_progress.h"
#include "core/errors/error.h"
#include "core/pretrained/pretrained_folder.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace attnlab::app {

namespace {

namespace fs = std::filesystem;
using analysis::HeadComparison;

/// What the user named: a model folder itself, not the work folder its reports go to.
std::string shownPath(const analysis::AnalysedCheckpoint& source) {
  return core::isPretrainedModelFolder(source.checkpoint) ? source.checkpoint : source.runDir;
}

void printSummary(const HeadComparison& r, const fs::path& folder, std::size_t files) {
  std::printf(
      "compared %s (step %lld) with %s (step %lld): %lld sequences, %lld tokens (%s), "
      "%.2f s\n",
      shownPath(r.a.source).c_str(), static_cast<long long>(r.a.source.step),
      shownPath(r.b.source).c_str(), static_cast<long long>(r.b.source.step),
      static_cast<long long>(r.sequences), static_cast<long long>(r.tokens),
      r.evaluationDescription.c_str(), r.seconds);
  for (int l = 0; l < r.a.layers; ++l) {
    const auto& m = r.matching[static_cast<std::size_t>(l)];
    std::printf("  layer %d: mean matched JSD %.4g bits, identity %.4g bits\n", l, m.meanMatched,
                m.meanIdentity);
  }
  if (!r.cka.empty()) {
    std::printf("  CKA diagonal (%lld tokens):", static_cast<long long>(r.ckaTokens));
    const int last = std::min(r.a.layers, r.b.layers);
    for (int i = 0; i <= last; ++i)
      std::printf(" %s %.4f%s", analysis::ckaRepresentationName(i).c_str(),
                  analysis::ckaAt(r, i, i), i < last ? "," : "");
    std::printf("\n");
  }
  std::printf("wrote %zu files to %s\n", files, folder.string().c_str());
}

analysis::CompareHeadsOptions compareOptionsOf(const CompareCommandOptions& o) {
  analysis::CompareHeadsOptions options;
  options.runA = o.runA;
  options.runB = o.runB;
  options.stepA = o.stepA;
  options.stepB = o.stepB;
  options.evaluation.textFile = o.text;
  options.evaluation.maxSequences = o.examples;
  options.evaluation.batchSize = o.batchSize;
  options.ckaTokens = o.ckaTokens;
  return options;
}

}  // namespace

int runCompare(const CompareCommandOptions& o) {
  return runReportingErrors("compare", [&] {
    if (!o.heads)
      throw DataError("",
                      "say what to compare: --heads (head JSD with matching, and linear CKA "
                      "between layers) is the only comparison the command line does so far");
    TaskProgress progress(stderr, !o.plain && ProgressBar::isTerminal(stderr));
    // The same job as the app's Compare heads: a bad --out fails before the work.
    const auto written = analysis::runHeadComparisonJob(
        compareOptionsOf(o), o.out,
        [&progress](const std::string& phase, std::int64_t done, std::int64_t total) {
          progress.update(phase, done, total);
        });
    progress.finish();
    printSummary(written.report, written.folder, written.files.size());
    return 0;
  });
}

}  // namespace attnlab::app
