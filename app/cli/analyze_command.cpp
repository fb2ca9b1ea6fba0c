#include "app/cli/analyze_command.h"

#include "analysis/jobs/report_jobs.h"
#include "analysis/report/beyond_weights_json.h"
#include "app/cli/command_errors.h"
#include "app/cli/health_command.h"
#include "app/cli/progress_bar.h"
#include "app/cli/task_progress.h"

#include <cstdio>

namespace attnlab::app {

namespace {

void printBeyondWeights(const analysis::BeyondWeightsSummaries& b) {
  if (const auto& r = b.rollout) {
    for (int l = 0; l < r->layers; ++l)
      std::printf("  rollout layer %d: diagonal %.3f, spread %.2f tokens, entropy %.3f nats\n", l,
                  r->diagonal[l], r->spread[l], r->entropy[l]);
  }
  if (const auto& n = b.norms) {
    for (int l = 0; l < n->layers; ++l)
      std::printf("  norms layer %d: weight-norm correlation %.3f (layer level)\n", l,
                  n->layerCorrelation[l]);
  }
  if (b.lensSkippedNoMlmHead)
    std::printf(
        "  lens: not made, the model has no MLM head (attention, rollout and norms are "
        "its own)\n");
  if (const auto& lens = b.lens) {
    for (int r = 0; r < static_cast<int>(lens->rows.size()); ++r) {
      const auto& row = lens->rows[static_cast<std::size_t>(r)];
      std::printf("  lens %s: accuracy %.3f, mean rank %.1f, KL to output %.3f nats%s\n",
                  analysis::lensRowName(*lens, r).c_str(), row.accuracy, row.meanRank,
                  row.meanKlToOutput, r == lens->halfAccuracyRow ? " (half the output's)" : "");
    }
  }
}

void printHeads(const analysis::HeadReport& r) {
  std::printf("  heads: full model loss %.4f nats, accuracy %.3f at %lld masked positions\n",
              r.full.loss, r.full.accuracy, static_cast<long long>(r.positions));
  for (int l = 0; l < r.layers; ++l) {
    std::printf("  heads layer %d: importance", l);
    for (int h = 0; h < r.heads; ++h)
      std::printf(" %.3f", r.importance[static_cast<std::size_t>(l * r.heads + h)]);
    std::printf("\n");
  }
  for (const auto& c : r.pruning) {
    if (c.points.empty()) continue;
    const auto& last = c.points.back();
    std::printf("  pruning (%s", c.order.c_str());
    if (c.order == "random") std::printf(", seed %llu", static_cast<unsigned long long>(c.seed));
    std::printf("): %d of %d heads masked, loss %.4f nats\n", last.masked, r.layers * r.heads,
                last.score.loss);
  }
  std::printf(
      "  heads took %.2f s: evaluation pass %.3f s, importance %.3f s (%.2fx), pruning "
      "curve %.3f s (%d passes, %.2fx)\n",
      r.evaluationSeconds + r.importanceSeconds + r.ablationSeconds + r.pruningSeconds,
      r.evaluationSeconds, r.importanceSeconds, r.importanceSeconds / r.evaluationSeconds,
      r.pruningSeconds, r.pruningPasses, r.pruningSeconds / r.evaluationSeconds);
}

analysis::AnalyzeOptions analyzeOptionsOf(const AnalyzeCommandOptions& o) {
  analysis::AnalyzeOptions options;
  options.run = o.run;
  options.step = o.step;
  options.evaluation.textFile = o.text;
  options.evaluation.maxSequences = o.examples;
  options.evaluation.batchSize = o.batchSize;
  options.statistics.jsdBase =
      o.jsdUnit == "nats" ? analysis::LogBase::Nats : analysis::LogBase::Bits;
  options.statistics.clarkSmoothing = o.clarkSmoothing;
  options.statistics.pairwiseSequences = o.pairwise;
  options.overCheckpoints = o.overCheckpoints;
  options.overSnapshots = !o.noSnapshots;
  options.beyond.rollout = !o.noRollout;
  options.beyond.norms = !o.noNorms;
  options.beyond.lens = !o.noLens;
  options.heads = o.heads;
  options.headOptions.ablation = !o.noAblation;
  options.headOptions.randomSeeds = o.pruningSeeds;
  return options;
}

/// `analyze --health`: the health report of the checkpoint the analysis read (a run still
/// training may have written a newer one since), over the same evaluation set.
HealthCommandOptions healthOptionsOf(const AnalyzeCommandOptions& o, std::int64_t step) {
  HealthCommandOptions health;
  health.run = o.run;
  health.step = step;
  health.text = o.text;
  health.examples = o.examples;
  health.batchSize = o.batchSize;
  health.plain = o.plain;
  return health;
}

}  // namespace

int runAnalyze(const AnalyzeCommandOptions& o) {
  return runReportingErrors("analyze", [&] {
    const auto options = analyzeOptionsOf(o);

    // One job, as the app's Run analysis: the folder is settled and checked before the
    // work, which can take hours.
    TaskProgress progress(stderr, !o.plain && ProgressBar::isTerminal(stderr));
    const auto job = analysis::runAnalysisJob(
        options, o.out,
        [&progress](const std::string& phase, std::int64_t done, std::int64_t total) {
          progress.update(phase, done, total);
        });
    progress.finish();
    const auto& report = job.report;
    const auto& files = job.files;
    const auto& out = job.folder;
    const auto& s = report.statistics;
    std::printf("analysed %s at step %lld: %lld sequences (%s), %d layers x %d heads, %.1f s\n",
                report.source.runDir.c_str(), static_cast<long long>(report.source.step),
                static_cast<long long>(report.evaluationSequences),
                report.evaluationDescription.c_str(), s.layers, s.heads, report.seconds);
    for (int l = 0; l < s.layers; ++l) {
      double entropy = 0;
      for (int h = 0; h < s.heads; ++h)
        entropy += s.entropy[static_cast<size_t>(l * s.heads + h)].median;
      std::printf("  layer %d: median entropy %.3f nats (mean over heads)", l, entropy / s.heads);
      if (l > 0) {
        double jsd = 0;
        for (int h = 0; h < s.heads; ++h)
          jsd += s.adjacentJsd[static_cast<size_t>((l - 1) * s.heads + h)].median;
        std::printf(", JSD to layer %d %.3f %s", l - 1, jsd / s.heads,
                    s.jsdBase == analysis::LogBase::Bits ? "bits" : "nats");
      }
      std::printf("\n");
    }
    printBeyondWeights(report.beyond);
    if (report.heads) printHeads(*report.heads);
    if (s.skippedRows > 0) {
      std::printf("  %lld (head, row) pairs had no attention on real keys and were left out\n",
                  static_cast<long long>(s.skippedRows));
    }
    if (!report.skipped.empty()) {
      std::printf("  skipped %zu lines of the evaluation text (listed in the report)\n",
                  report.skipped.size());
    }
    std::printf("wrote %zu files to %s\n", files.size(), out.string().c_str());
    return o.health ? runHealth(healthOptionsOf(o, report.source.step)) : 0;
  });
}

}  // namespace attnlab::app
