#pragma once

// One row per run of the comparison table (the app's Compare tab, the comparison figures'
// report): what was trained, where it ended, what the probe and the analysis found. Read
// from the run folder only (run log, the latest coref.json and analysis.json); every
// missing part is a note that says which command makes it, never an error.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::figures {

struct RunSummary {
  std::string runDir;
  std::string runName;
  std::vector<std::string> mechanisms;  ///< ids of the enabled mechanisms (core/mechanisms)
  std::int64_t lastStep = -1;           ///< last logged train/loss step; -1: none yet
  std::optional<double> finalTrainLoss;
  std::optional<std::int64_t> evalStep;  ///< step of the last evaluation
  std::optional<double> finalEvalLoss;   ///< nats
  std::optional<double> finalEvalAccuracy;
  /// The latest coreference probe: best head (layer, head, accuracy) and mean over heads.
  std::optional<std::int64_t> probeStep;
  int probeBestLayer = -1, probeBestHead = -1;
  double probeBestAccuracy = 0, probeMeanAccuracy = 0;
  std::string probeDataset;
  /// The latest analysis: per layer, the median over its heads of each head's median row
  /// entropy (nats).
  std::optional<std::int64_t> analysisStep;
  std::vector<double> medianEntropyPerLayer;
  std::vector<std::string> notes;  ///< what is missing and the command that makes it
};

/// Reads `run` (a run folder). Throws FigureInputError when it has no run log; a missing
/// report is a note.
RunSummary summariseRun(const std::filesystem::path& run);

/// The rows as a Markdown table with the units in the header and the notes below.
std::string runSummaryMarkdown(const std::vector<RunSummary>& rows);
/// The same as CSV (one header line; empty cells where a value is missing).
std::string runSummaryCsv(const std::vector<RunSummary>& rows);

/// "L3-H5"; "-" when there is no best head.
std::string headName(int layer, int head);

}  // namespace attnlab::figures
