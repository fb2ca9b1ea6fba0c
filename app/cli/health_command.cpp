#include "app/cli/health_command.h"

#include "analysis/jobs/health_job.h"
#include "app/cli/command_errors.h"
#include "app/cli/progress_bar.h"
#include "app/cli/task_progress.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace attnlab::app {

namespace {

namespace fs = std::filesystem;

double layerMean(const std::vector<double>& v, int layer, int heads) {
  double sum = 0;
  for (int h = 0; h < heads; ++h) sum += v[static_cast<size_t>(layer * heads + h)];
  return sum / heads;
}

double layerMax(const std::vector<double>& v, int layer, int heads) {
  const auto first = v.begin() + layer * heads;
  return *std::max_element(first, first + heads);
}

void printSinks(const analysis::HealthReport& r) {
  std::printf("  sink rate (heads with class mass > %.3g):", r.sinkEpsilon);
  for (size_t c = 0; c < r.classes.size(); ++c)
    std::printf(" %s %.1f%%", r.classes[c].c_str(), 100.0 * r.sinkRate[c]);
  std::printf("\n");
}

void printLayers(const analysis::HealthReport& r) {
  for (int l = 0; l < r.layers; ++l) {
    const auto L = static_cast<size_t>(l);
    const auto& top = r.massive[L][0];
    std::printf(
        "  layer %d: entropy %.3f nats (min %.3f), %.1f%% rows collapsed, S_max %.2f, "
        "spectral norm %.2f\n",
        l, layerMean(r.entropyMean, l, r.heads),
        *std::min_element(r.entropyMin.begin() + l * r.heads,
                          r.entropyMin.begin() + (l + 1) * r.heads),
        100.0 * layerMean(r.collapsedShare, l, r.heads), layerMax(r.logitMax, l, r.heads),
        layerMax(r.spectralNorm, l, r.heads));
    std::printf(
        "           top |h| %.2f at '%s' (sequence %lld, position %lld, dim %lld), %.1fx the "
        "median %.3f; rank residual %.3f, mean cosine %.3f\n",
        top.value, top.token.c_str(), static_cast<long long>(top.sequence),
        static_cast<long long>(top.position), static_cast<long long>(top.dimension),
        r.massiveRatio[L], r.medianAbs[L], r.rankResidual[L], r.meanCosine[L]);
    if (!r.rotarySpectralNorm.empty())
      std::printf("           rotary: spectral norm up to %.2f over offsets +-%lld (base %g)\n",
                  layerMax(r.rotarySpectralNorm, l, r.heads),
                  static_cast<long long>(r.rotaryReach[L]), r.rotaryTheta[L]);
  }
}

std::string fileNames(const std::vector<fs::path>& files) {
  std::string names;
  for (const auto& f : files) names += (names.empty() ? "" : ", ") + f.filename().string();
  return names;
}

}  // namespace

int runHealth(const HealthCommandOptions& o) {
  return runReportingErrors("health", [&] {
    analysis::HealthJobOptions options;
    options.run = o.run;
    options.step = o.step;
    options.text = o.text;
    options.maxSequences = o.examples;
    options.batchSize = o.batchSize;
    options.sinkEpsilon = o.sinkEpsilon;
    options.collapseNats = o.collapseNats;
    TaskProgress progress(stderr, !o.plain && ProgressBar::isTerminal(stderr));
    // One job, as the app would run it: the folder is settled and checked before the work.
    const auto job = analysis::runHealthJob(
        options, o.out,
        [&progress](const std::string& phase, std::int64_t done, std::int64_t total) {
          progress.update(phase, done, total);
        });
    progress.finish();
    const auto& r = job.report;
    std::printf("health of %s at step %lld: %lld sequences (%s), %d layers x %d heads, %.1f s\n",
                r.source.runDir.c_str(), static_cast<long long>(r.source.step),
                static_cast<long long>(r.sequences), r.evaluationDescription.c_str(), r.layers,
                r.heads, r.seconds);
    printSinks(r);
    printLayers(r);
    if (!r.skipped.empty())
      std::printf("  skipped %zu lines of the evaluation text (listed in health.json)\n",
                  r.skipped.size());
    std::printf("wrote %zu files to %s: %s\n", job.files.size(), job.folder.string().c_str(),
                fileNames(job.files).c_str());
    return 0;
  });
}

}  // namespace attnlab::app
