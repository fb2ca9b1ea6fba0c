#pragma once

// The offline attention-health report (issue 41) as one job, the same for `attnlab-cli
// health` and the app: a checkpoint of a run (or a Hugging Face model folder) over an
// evaluation set (the run's validation split, or a text file of one sequence a line), every
// batch accumulated into one core::HealthAccumulator (sinks per token class, entropy, S_max,
// massive activations, rank collapse: core/health/attention_health.h), plus the spectral norm
// of W_Q,h W_K,h^T / sqrt(d) from the weights (core/health/attention_spectral.h). Written as
// health.json, health.csv (per head), health_layers.csv (per layer) and health.md into
// <run>/analysis/health-step-S (analysis/report/report_layout.h) or a chosen folder, staged so
// a failure never leaves a partial report. Plain C++ values: no LibTorch in this header.

#include "analysis/attention/skipped_data.h"
#include "analysis/runs/analysis_control.h"
#include "analysis/runs/run_selection.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::analysis {

/// `attnlab-cli health RUN|MODEL_DIR [--step N] [--text FILE] [--sink-epsilon X]
/// [--collapse-nats X] [--examples N] [--batch-size B]`.
struct HealthJobOptions {
  std::filesystem::path run;         ///< run directory, checkpoint file or model folder
  std::optional<std::int64_t> step;  ///< empty: the latest checkpoint
  std::filesystem::path text;        ///< empty: the run's validation split
  std::int64_t maxSequences = 0;     ///< 0: the whole evaluation set
  int batchSize = 16;
  /// Empty: the checkpoint's log.health_sink_epsilon / log.health_collapse_nats (0.3 and 0.5
  /// unless the run changed them), so the report measures what the run's health series did.
  std::optional<double> sinkEpsilon;
  std::optional<double> collapseNats;
};

/// One of a layer's three largest |h| of the residual stream, and where it is.
struct HealthMassiveEntry {
  double value = 0;
  std::int64_t sequence = -1;  ///< in the evaluation set, from 0
  std::int64_t position = -1;  ///< in the sequence (0 = <s> / [CLS])
  std::int64_t dimension = -1;
  std::string token;  ///< the piece at that position
};

/// The report: flat row-major arrays ([L, H] is l * H + h; [L, H, C] is (l * H + h) * C + c).
struct HealthReport {
  AnalysedCheckpoint source;
  std::vector<std::int64_t> availableSteps;
  std::string evaluationKind;  ///< "validation" or "text"
  std::string evaluationDescription;
  std::int64_t sequences = 0;
  std::int64_t rows = 0;  ///< real query rows per head
  std::vector<SkippedData> skipped;
  double sinkEpsilon = 0.3;
  double collapseNats = 0.5;
  int spectralIterations = 0;
  int layers = 0, heads = 0;
  std::vector<std::string> classes;     ///< "first", "cls", "sep", "punctuation", "other"
  std::vector<double> classMass;        ///< [L, H, C]; NaN: no sequence holds the class
  std::vector<double> sinkRate;         ///< [C]
  std::vector<double> sinkRateByLayer;  ///< [L, C]
  std::vector<double> topKeyMass;       ///< [L, H]
  std::vector<int> topKeyClass;         ///< [L, H] index into `classes`
  std::vector<double> entropyMean, entropyMin, collapsedShare;  ///< [L, H], nats
  std::vector<double> logitMax;                                 ///< [L, H]
  std::vector<double> spectralNorm;                             ///< [L, H]
  /// Under rotary positions (model.position = "rope"; empty otherwise): the spectral norm's
  /// largest value over the offsets a layer's queries reach [L, H]
  /// (core/health/rotary_spectral.h), the offset where it is reached (key minus query)
  /// [L, H], and the largest |offset| searched [L]: the longest sequence's, within the band.
  std::vector<double> rotarySpectralNorm;
  std::vector<std::int64_t> rotarySpectralOffset;
  std::vector<std::int64_t> rotaryReach;
  std::vector<double> rotaryTheta;   ///< [L] each layer's RoPE base
  std::int64_t longestSequence = 0;  ///< real tokens of the evaluation set's longest sequence
  std::vector<std::array<HealthMassiveEntry, 3>> massive;                 ///< [L], largest first
  std::vector<double> medianAbs, massiveRatio, rankResidual, meanCosine;  ///< [L]
  std::string configToml;
  double seconds = 0;
};

/// What the job wrote.
struct HealthJobResult {
  HealthReport report;
  std::filesystem::path folder;
  std::vector<std::filesystem::path> files;
};

/// The weights measured loaded (0..1), after kPhaseBuildEvaluationSet: the job's own copy of
/// the model, loaded once the inspector that built the evaluation set has released its own.
inline constexpr const char* kPhaseLoadWeights = "loading weights";
/// The phase of the spectral norms (0..1), after kPhaseEvaluationSet.
inline constexpr const char* kPhaseSpectralNorms = "spectral norms";

/// Measures `options` and writes the report to `out`, or to reportFolder(run,
/// ReportKind::Health, step) when `out` is empty. Checked before any work: the text file (missing,
/// a folder, empty), the settings (epsilon in [0, 1], nats >= 0), the checkpoint (CheckpointError
/// naming the available steps), the report folder. Progress: kPhaseLoadCheckpoint,
/// kPhaseBuildEvaluationSet, kPhaseLoadWeights, kPhaseEvaluationSet (sequences),
/// kPhaseSpectralNorms; a set `*cancel` throws attnlab::Cancelled before the next batch. On failure
/// the folder is removed when the job made it and it is still empty; a previous report there stays
/// whole.
HealthJobResult runHealthJob(const HealthJobOptions& options, const std::filesystem::path& out,
                             const AnalysisProgress& progress = {},
                             const std::atomic<bool>* cancel = nullptr);

/// Measures without writing (what runHealthJob writes).
HealthReport measureHealth(const HealthJobOptions& options, const SelectedCheckpoint& selected,
                           const AnalysisProgress& progress = {},
                           const std::atomic<bool>* cancel = nullptr);

/// health.json, health.csv, health_layers.csv and health.md into `folder` (created): staged
/// under temporary names, then renamed into place. Returns the files. Throws DataError.
std::vector<std::filesystem::path> writeHealthReport(const HealthReport& report,
                                                     const std::filesystem::path& folder);

/// The files' contents (for the writer and tests).
std::string healthJson(const HealthReport& report);
std::string healthCsv(const HealthReport& report);
std::string healthLayersCsv(const HealthReport& report);
std::string healthMarkdown(const HealthReport& report);

}  // namespace attnlab::analysis
