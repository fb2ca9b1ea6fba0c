#include "app/cli/compare_command.h"

#include "analysis/report/head_comparison_report.h"
#include "analysis/report/report_files.h"
#include "analysis/report/report_layout.h"
#include "analysis/runs/head_comparison.h"
#include "app/cli/command_errors.h"
#include "app/cli/progress_bar.h"
#include "app/cli/task_progress.h"
#include "core/data/data_files.h"
#include "core/errors/error.h"
#include "core/pretrained/pretrained_folder.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace attnlab::app {

namespace {

namespace fs = std::filesystem;
using analysis::HeadComparison;
using nlohmann::json;

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

analysis::CompareHeadsOptions compareOptionsOf(const CompareCommandOptions& o,
                                               const analysis::SelectedCheckpoint& a,
                                               const analysis::SelectedCheckpoint& b) {
  analysis::CompareHeadsOptions options;
  // The checkpoints already chosen, so both steps are settled before the folder is.
  options.runA = a.checkpoint;
  options.runB = b.checkpoint;
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
    const auto a = analysis::selectCheckpoint(o.runA, o.stepA);
    const auto b = analysis::selectCheckpoint(o.runB, o.stepB);
    const fs::path folder =
        o.out.empty() ? analysis::comparisonFolder(a.runDir, a.step, b.runDir, b.step) : o.out;
    analysis::prepareReportFolder(folder);  // a bad --out fails before the work

    TaskProgress progress(stderr, !o.plain && ProgressBar::isTerminal(stderr));
    const auto report = analysis::compareHeads(
        compareOptionsOf(o, a, b),
        [&progress](const std::string& phase, std::int64_t done, std::int64_t total) {
          progress.update(phase, done, total);
        });
    progress.finish();
    const auto written = analysis::writeHeadComparison(report, folder);
    printSummary(report, folder, written.size());
    return 0;
  });
}

}  // namespace attnlab::app
