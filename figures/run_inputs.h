#pragma once

// Reading what a figure needs from a run folder, with errors that say what is missing,
// where, and which command makes it. Torch-free: only core's run-log reader.

#include "core/runlog/run_log_reader.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::figures {

/// A run's log opened for reading.
struct RunLogInput {
  std::filesystem::path runDir;
  std::filesystem::path logFile;  ///< <runDir>/run.h5
  std::string runName;            ///< run.name as the log records it
  core::RunLogReader reader;
};

/// `run` without a trailing separator or "." and ".." parts, so its last part is the folder.
std::filesystem::path normaliseRunPath(const std::filesystem::path& run);

/// Opens <run>/run.h5. Throws FigureInputError (at `run`) when the folder or its log is
/// missing; an unreadable log throws the reader's RunLogError.
RunLogInput openRunLog(const std::filesystem::path& run);

/// True when the log declares the scalar (or series) `name`.
bool hasScalar(const RunLogInput& run, const std::string& name);
bool hasSeries(const RunLogInput& run, const std::string& name);

/// The scalar `name` with at least one row. Throws FigureInputError (at the run) saying
/// "run has no <name> scalar: <whyAbsent>" or "... no <name> rows yet".
core::ScalarSeries requireScalar(const RunLogInput& run, const std::string& name,
                                 const std::string& whyAbsent);
/// The same for a per-layer series ([L] per row).
core::TensorSeries requireLayerSeries(const RunLogInput& run, const std::string& name,
                                      const std::string& whyAbsent);

/// A report file of a run and the checkpoint step it describes.
struct ReportLocation {
  std::filesystem::path file;
  std::int64_t step = 0;
};

/// <run>/analysis/step-S/analysis.json for `step`, or the latest S when none is given.
/// Throws FigureInputError naming the folder, the steps that have a report, and the
/// `attnlab-cli analyze` command that writes the missing one.
ReportLocation findAnalysisReport(const std::filesystem::path& run,
                                  std::optional<std::int64_t> step);
/// <run>/analysis/coref-step-S/coref.json, as findAnalysisReport (`attnlab-cli probe coref`).
ReportLocation findCorefReport(const std::filesystem::path& run, std::optional<std::int64_t> step);

/// The label of each run in a legend: its run name, or "name (folder)" where two runs share
/// a name.
std::vector<std::string> runLabels(const std::vector<RunLogInput>& runs);
/// True for a Hugging Face model folder opened as a run (core::isPretrainedModelFolder; here
/// so that figure code need not include the engine's headers).
bool isModelFolder(const std::filesystem::path& dir);
/// The same from each run's name and folder (a pretrained model folder has no run log).
struct NamedRun {
  std::string name;
  std::filesystem::path dir;
};
std::vector<std::string> runLabels(const std::vector<NamedRun>& runs);

/// "steps 1-8, 8 rows" for the rows of a series.
std::string stepRangeText(const std::vector<std::int64_t>& steps);

}  // namespace attnlab::figures
