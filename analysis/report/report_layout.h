#pragma once

// Where a run's reports live, in one place for the command line, the app and the figures:
// `attnlab-cli analyze` writes <run>/analysis/step-S/analysis.json (with its CSV and
// Markdown), `attnlab-cli probe coref` <run>/analysis/coref-step-S/coref.json; the app's
// Run analysis and Run probe write the same folders, and the Analysis and Probe tabs and
// the figure catalog find them here.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace attnlab::analysis {

enum class ReportKind {
  Attention,  ///< attnlab-cli analyze: analysis.json
  Coref,      ///< attnlab-cli probe coref: coref.json
  Health,     ///< attnlab-cli health: health.json (with health.csv, health_layers.csv, health.md)
};

/// <run>/analysis: every report folder of the run is in it; for a pretrained model folder,
/// <its work folder>/analysis (core::pretrainedWorkDir).
std::filesystem::path reportsFolder(const std::filesystem::path& run);
/// <run>/analysis/step-S, coref-step-S or health-step-S.
std::filesystem::path reportFolder(const std::filesystem::path& run, ReportKind kind,
                                   std::int64_t step);
/// <run A>/analysis/compare-step-SA-vs-<run B's folder name>-step-SB: `attnlab-cli compare`'s
/// report on run A's checkpoint at step SA against run B's at SB (run B may be run A).
std::filesystem::path comparisonFolder(const std::filesystem::path& runA, std::int64_t stepA,
                                       const std::filesystem::path& runB, std::int64_t stepB);
/// "step-", "coref-step-" or "health-step-": a report folder's name is this and the checkpoint's
/// step.
std::string_view reportFolderPrefix(ReportKind kind);
/// "analysis.json", "coref.json" or "health.json": the file a report folder holds.
std::string_view reportFileName(ReportKind kind);

/// A report file under <run>/analysis, with the step its folder names.
struct ReportFile {
  std::optional<std::int64_t> step;  ///< empty for a folder named otherwise (a chosen --out)
  std::filesystem::path file;
};
/// Every <run>/analysis/<folder>/<reportFileName(kind)>: the step folders of `kind` by
/// step, after the folders named otherwise (by name). Empty when there is no such folder.
std::vector<ReportFile> reportFiles(const std::filesystem::path& run, ReportKind kind);
/// The steps of the step folders of `kind` that hold their report, ascending.
std::vector<std::int64_t> reportSteps(const std::filesystem::path& run, ReportKind kind);

}  // namespace attnlab::analysis
