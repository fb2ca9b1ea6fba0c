#include "analysis/runs/attention_analysis.h"

#include "core/tokenizer/piece_roles.h"

#include "analysis/runs/run_selection.h"
#include "core/errors/error.h"
#include "core/inspect/attention_inspector.h"
#include "core/model/attention_maps.h"
#include "core/runlog/run_log_reader.h"

#include <torch/torch.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <system_error>

namespace attnlab::analysis {

namespace fs = std::filesystem;

namespace {

TrainingStatisticsPoint pointOf(const std::string& source, std::int64_t step,
                                const AttentionStatisticsResult& r) {
  TrainingStatisticsPoint p;
  p.source = source;
  p.step = step;
  p.sequences = r.sequences;
  for (const auto& d : r.entropy) p.medianEntropy.push_back(d.median);
  for (const auto& d : r.adjacentJsd) p.medianAdjacentJsd.push_back(d.median);
  p.headSummaries = r.headSummaries;
  p.guidanceDistance = r.guidanceDistance;
  return p;
}

/// Streams the evaluation set through one checkpoint's model into `stats` (and `beyond`'s
/// summaries when given). Cancel is checked before every batch, so it takes effect within one
/// forward pass (two with the logit lens).
void accumulate(core::AttentionInspector& inspector, EvaluationSet& set, AttentionStatistics& stats,
                const std::string& phase, const AnalysisProgress& progress,
                const std::atomic<bool>* cancel, BeyondWeightsPass* beyond = nullptr) {
  set.rewind();
  EvaluationBatch batch;
  std::int64_t done = 0;
  if (progress) progress(phase, 0, set.size());
  while (true) {
    throwIfCancelled(cancel, phase + ", after " + std::to_string(done) + " of " +
                                 std::to_string(set.size()) + " sequences");
    if (!set.next(batch)) break;
    core::BatchCapture capture;
    if (beyond != nullptr) {
      capture = inspector.captureBatch(batch.ids, beyond->request());
    } else {
      capture.probabilities = inspector.probabilitiesOf(batch.ids);
    }
    const auto B = static_cast<int>(batch.ids.size(0));
    const auto T = static_cast<int>(batch.ids.size(1));
    // [L, B, H, T, T]
    stats.addBatch(capture.probabilities.data_ptr<float>(), B, T, batch.roles, /*layerMajor=*/true);
    if (beyond != nullptr) beyond->addBatch(inspector, batch, capture, done);
    done += B;
    if (progress) progress(phase, done, set.size());
  }
}

/// The log's attention snapshots of the probe batch: statistics per snapshot step.
std::vector<TrainingStatisticsPoint> snapshotStatistics(const fs::path& log, int layers, int heads,
                                                        const StatisticsOptions& base,
                                                        const AnalysisProgress& progress,
                                                        const std::atomic<bool>* cancel) {
  std::vector<TrainingStatisticsPoint> points;
  std::error_code ec;
  if (!fs::exists(log, ec)) return points;
  core::RunLogReader reader(log.string());
  const auto names = reader.seriesNames();
  if (std::find(names.begin(), names.end(), "snapshots/probabilities") == names.end()) {
    return points;
  }
  const auto tokens = reader.probeTokens();
  const auto rows = reader.seriesRows("snapshots/probabilities");
  StatisticsOptions options = base;
  options.pairwiseSequences = 0;
  for (std::uint64_t row = 0; row < rows; ++row) {
    if (progress)
      progress(kPhaseSnapshots, static_cast<std::int64_t>(row), static_cast<std::int64_t>(rows));
    throwIfCancelled(cancel, std::string(kPhaseSnapshots) + ", row " + std::to_string(row) +
                                 " of " + std::to_string(rows));
    const auto snapshot = reader.series("snapshots/probabilities", row, 1);
    const auto& shape = snapshot.innerShape;  // [L, B, H, T, T]
    if (shape.size() != 5 || shape[0] != layers || shape[2] != heads ||
        static_cast<std::size_t>(shape[1]) != tokens.size()) {
      throw RunLogError(log.string(), "snapshots/probabilities row " + std::to_string(row) +
                                          " does not match the model (" + std::to_string(layers) +
                                          " layers, " + std::to_string(heads) +
                                          " heads) and its probe batch");
    }
    const int B = static_cast<int>(shape[1]);
    const int T = static_cast<int>(shape[3]);
    std::vector<SequenceRoles> roles;
    for (const auto& pieces : tokens) {
      SequenceRoles r;
      for (const auto& piece : pieces) {
        if (core::isPaddingPiece(piece) || r.length == T) break;
        ++r.length;
        r.separator.push_back(core::isSequenceEndPiece(piece) ? 1 : 0);
        r.period.push_back(core::isPeriodPiece(piece) ? 1 : 0);
      }
      roles.push_back(std::move(r));
    }
    AttentionStatistics stats(layers, heads, T, options);
    try {
      stats.addBatch(snapshot.values.data(), B, T, roles, /*layerMajor=*/true);
    } catch (const std::invalid_argument& e) {
      throw RunLogError(log.string(),
                        "snapshots/probabilities row " + std::to_string(row) + ": " + e.what());
    }
    points.push_back(pointOf("snapshot", snapshot.steps.front(), stats.result()));
  }
  if (progress && rows > 0)
    progress(kPhaseSnapshots, static_cast<std::int64_t>(rows), static_cast<std::int64_t>(rows));
  return points;
}

}  // namespace

AnalysisReport analyzeRun(const AnalyzeOptions& options, const AnalysisProgress& progress,
                          const std::atomic<bool>* cancel) {
  const auto started = std::chrono::steady_clock::now();
  const auto tell = [&progress](const char* phase, std::int64_t done, std::int64_t total) {
    if (progress) progress(phase, done, total);
  };
  throwIfCancelled(cancel, "selecting the checkpoint");
  const auto selected = selectCheckpoint(options.run, options.step);
  // One HDF5 read of every parameter that cannot be interrupted (its time grows with the
  // model): checked on both sides.
  tell(kPhaseLoadCheckpoint, 0, 1);
  throwIfCancelled(cancel, "loading " + selected.checkpoint.string());
  core::AttentionInspector inspector(selected.checkpoint);
  tell(kPhaseLoadCheckpoint, 1, 1);
  throwIfCancelled(cancel, "loaded " + selected.checkpoint.string());
  // Before the evaluation set: the head analysis cannot run on a model without MLM head.
  if (options.heads) inspector.requireMlmHead("--heads (head importance, ablation and pruning)");
  EvaluationSet set(inspector, selected.runDir, options.evaluation, progress, cancel);
  const auto& model = inspector.config().model;

  AnalysisReport report;
  report.source = {selected.runDir.string(), inspector.config().run.name,
                   selected.checkpoint.string(), selected.step,
                   core::mapNormalisationText(core::attentionMapsOf(inspector.config().attention))};
  report.availableSteps = selected.availableSteps;
  report.evaluationKind = set.kind();
  report.evaluationDescription = set.description();
  report.evaluationSequences = set.size();
  report.maxLength = set.maxLength();
  report.configToml = inspector.configToml();
  report.skipped = set.skipped();

  AttentionStatistics stats(model.layers, model.heads, set.maxLength(), options.statistics);
  std::optional<BeyondWeightsPass> beyond;
  if (options.beyond.any()) beyond.emplace(inspector, options.beyond);
  accumulate(inspector, set, stats, kPhaseEvaluationSet, progress, cancel,
             beyond ? &*beyond : nullptr);
  report.statistics = stats.result();
  if (beyond) report.beyond = beyond->result();
  if (options.heads)
    report.heads = analyseHeads(inspector, set, options.headOptions, progress, cancel);

  const fs::path log = selected.runDir / "run.h5";
  std::error_code ec;
  if (fs::exists(log, ec)) {
    throwIfCancelled(cancel, "reading the variants' series from " + log.string());
    report.variantSeries = readVariantSeries(log);
    if (options.overSnapshots) {
      report.overTraining =
          snapshotStatistics(log, model.layers, model.heads, options.statistics, progress, cancel);
    }
  }
  if (options.overCheckpoints) {
    StatisticsOptions light = options.statistics;
    light.pairwiseSequences = 0;
    for (const auto step : selected.availableSteps) {
      const std::string phase = "checkpoint " + std::to_string(step);
      throwIfCancelled(cancel, "loading " + phase);
      const auto other = step == selected.step ? selected : selectCheckpoint(selected.runDir, step);
      core::AttentionInspector at(other.checkpoint);
      AttentionStatistics s(model.layers, model.heads, set.maxLength(), light);
      accumulate(at, set, s, phase, progress, cancel);
      report.overTraining.push_back(pointOf("checkpoint", step, s.result()));
    }
  }
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace attnlab::analysis
