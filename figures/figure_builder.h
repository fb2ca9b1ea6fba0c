#pragma once

// Builds a catalog figure (figure_catalog.h) from run folders: the configured plot widget
// with its title, axis labels with units and legend, and where its data came from. The one
// place a figure is made: the CLI exports what this returns, the app shows it.

#include "figures/figure_catalog.h"
#include "widgets/plots/plot_export.h"
#include "widgets/plots/plot_widget.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::figures {

/// Which figure, from which runs.
struct FigureRequest {
  std::string figure;                       ///< a catalog name, e.g. "asa-fig5"
  std::vector<std::filesystem::path> runs;  ///< run folders
  std::optional<std::int64_t> step;         ///< report figures: the checkpoint step (latest
                                            ///< report when empty); ignored by log figures
};

/// Where one run's part of a figure came from (the report index prints it).
struct FigureProvenance {
  std::string runDir;
  std::string runName;
  std::string steps;   ///< "steps 1-8, 8 rows", "checkpoint step 4 (.../step-0000004.h5)"
  std::string source;  ///< the file and what was read from it
};

/// A built figure: the plot (unparented; deleted with the figure), its provenance and the
/// size it is best exported at (the spec's, or larger where the data need room: a violin
/// row per layer).
struct Figure {
  const FigureSpec* spec = nullptr;
  std::unique_ptr<widgets::PlotWidget> plot;
  std::vector<FigureProvenance> provenance;
  int widthPx = 0;  ///< 0 until buildFigure() fills in the spec's
  int heightPx = 0;
};

/// Builds `request.figure` from its runs. Needs a QApplication (the plots are widgets).
/// Throws FigureError for an unknown figure or a number of runs the figure does not take,
/// FigureInputError when an input is missing (what, where, and the command that makes it),
/// and the readers' own errors for unreadable files.
Figure buildFigure(const FigureRequest& request);

/// The figure's default export size (widthPx x heightPx) at the export's default DPI; the
/// document title is left empty, so the export takes the plot's title.
widgets::ExportOptions defaultExportOptions(const Figure& figure);

/// Writes the figure through PlotWidget::exportTo; an empty options.title takes the plot's.
/// Throws FigureError naming the file when the export fails.
void exportFigure(Figure& figure, const std::filesystem::path& path, widgets::ExportFormat format,
                  const widgets::ExportOptions& options);

/// "png", "svg", "pdf".
std::string formatExtension(widgets::ExportFormat format);

}  // namespace attnlab::figures
