#pragma once

// The report bundle of one run: every catalog figure that applies to it, in PNG, SVG and
// PDF; the data behind them (the analysis and coreference reports as JSON, CSV and Markdown,
// the resolved config.toml, a one-row summary.md/.csv); and an index.md that names for each
// file the run, the checkpoint or steps, the data source and the units, and lists the
// figures that do not apply with the reason.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::figures {

struct FigureReportOptions {
  std::filesystem::path run;
  std::filesystem::path outDir;
  std::optional<std::int64_t> step;  ///< report figures' checkpoint step (default: latest)
  std::optional<int> widthPx;        ///< default: each figure's own size
  std::optional<int> heightPx;
  std::optional<double> dpi;  ///< PNG pixel density (default: the export's, 150)
};

/// One catalog figure in the bundle.
struct FigureReportEntry {
  std::string figure;
  std::vector<std::filesystem::path> files;  ///< PNG, SVG, PDF; empty when it does not apply
  std::string notApplicable;                 ///< why not, when files is empty
};

struct FigureReport {
  std::filesystem::path index;             ///< <outDir>/index.md
  std::vector<FigureReportEntry> entries;  ///< catalog order
};

/// Writes the bundle into `outDir` (created when missing). A figure whose input is missing
/// (FigureInputError) is listed as not applying; anything else (an unreadable log, a failed
/// write) throws. Needs a QApplication.
FigureReport writeFigureReport(const FigureReportOptions& options);

}  // namespace attnlab::figures
