#include "app/cli/qk_map_command.h"

#include "analysis/jobs/query_key_map_job.h"
#include "app/cli/command_errors.h"
#include "app/cli/progress_bar.h"
#include "app/cli/task_progress.h"
#include "core/errors/error.h"

#include <cstdio>
#include <string>

namespace attnlab::app {

namespace {

namespace fs = std::filesystem;

void printSummary(const analysis::QueryKeySample& s, const fs::path& out) {
  const std::string heads = s.head >= 0 ? "head " + std::to_string(s.head) : "every head";
  std::printf("query-key map of layer %d, %s: %lld tokens of %zu sequences, head dim %d\n", s.layer,
              heads.c_str(), static_cast<long long>(s.tokens()), s.sentences.size(), s.headDim);
  for (const auto& m : s.maps)
    std::printf("  head %d: PCA explains %.1f%%, scale %.4g%s\n", m.head, 100.0 * m.map.explained,
                m.map.normalisation.scale,
                m.map.normalisation.normsMatched ? "" : " (mean norms not matched)");
  std::printf("wrote %s\n", out.string().c_str());
}

}  // namespace

int runQkMap(const QkMapCommandOptions& o) {
  return runReportingErrors("qk-map", [&] {
    if (!o.allHeads && !o.head)
      throw DataError("", "give --head H, or --all-heads for every head of the layer");
    analysis::QueryKeyMapJobOptions options;
    options.run = o.run;
    options.step = o.step;
    options.layer = o.layer;
    options.head = o.allHeads ? -1 : *o.head;
    options.maxTokens = o.tokens;
    options.text = o.text;
    options.batchSize = o.batchSize;
    TaskProgress progress(stderr, !o.plain && ProgressBar::isTerminal(stderr));
    // The same job as the app's Query-key map window, which draws the map instead.
    const auto result = analysis::runQueryKeyMapJob(
        options, o.out,
        [&progress](const std::string& phase, std::int64_t done, std::int64_t total) {
          progress.update(phase, done, total);
        });
    progress.finish();
    printSummary(result.sample, o.out);
    return 0;
  });
}

}  // namespace attnlab::app
