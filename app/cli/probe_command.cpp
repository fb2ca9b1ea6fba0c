#include "app/cli/probe_command.h"

#include "analysis/jobs/report_jobs.h"
#include "app/cli/command_errors.h"
#include "app/cli/progress_bar.h"
#include "app/cli/task_progress.h"

#include <cstdio>

namespace attnlab::app {

int runProbeCoref(const ProbeCorefCommandOptions& o) {
  return runReportingErrors("probe coref", [&] {
    analysis::CorefProbeOptions options;
    options.run = o.run;
    options.step = o.step;
    options.dataset = o.dataset;
    options.syntheticSize = o.size;
    options.seed = o.seed;
    options.distractor = o.distractor;
    options.scope = o.argmax == "exclude-self-special"
                        ? analysis::coref::ArgmaxScope::ExcludeSelfAndSpecials
                        : analysis::coref::ArgmaxScope::AllWords;

    // One job, as the app's Run probe: the folder is settled and checked before the work.
    TaskProgress progress(stderr, !o.plain && ProgressBar::isTerminal(stderr));
    const auto job =
        analysis::runProbeJob(options, o.out, [&progress](std::int64_t done, std::int64_t total) {
          progress.update("examples", done, total);
        });
    progress.finish();
    const auto& report = job.report;
    const auto& files = job.files;
    const auto& out = job.folder;
    const auto& p = report.result;
    std::printf("probed %s at step %lld on %s: %lld mentions in %lld examples (%zu skipped)\n",
                report.source.runDir.c_str(), static_cast<long long>(report.source.step),
                report.datasetDescription.c_str(), static_cast<long long>(p.items),
                static_cast<long long>(report.examples), report.skipped.size());
    std::printf("  best head L%dH%d %.1f%%, mean over heads %.1f%%\n", p.bestLayer, p.bestHead,
                100.0 * p.bestAccuracy, 100.0 * p.meanAccuracy);
    for (const auto& b : p.baselines) {
      std::printf("  baseline %s %.1f%%\n", b.name.c_str(), 100.0 * b.accuracy);
    }
    std::printf("wrote %zu files to %s\n", files.size(), out.string().c_str());
    return 0;
  });
}

}  // namespace attnlab::app
