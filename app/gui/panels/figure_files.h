#pragma once

// Writing figures from the app: the one check of the file's format, the one save dialog, and
// the catalog figures built from a run exactly as `attnlab-cli export` builds them. The
// Analysis and Probe tabs and File > Export figure use these.

#include "widgets/plots/plot_export.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <string>

class QPushButton;
class QWidget;

namespace attnlab::widgets {
class PlotWidget;
}

namespace attnlab::app {

/// A file name from a figure's or a tab's title: "Attention entropy per head, step 8: tiny"
/// -> "attention-entropy-per-head-step-8-tiny" (at most 60 characters; "figure" when empty).
QString figureFileStem(const QString& title);

/// The format `path`'s suffix names; nullopt with `error` set to "<path>: choose a .png,
/// .svg or .pdf file" otherwise.
std::optional<widgets::ExportFormat> figureFormatOf(const QString& path, QString* error);

/// Writes `plot` to `path` (format by its suffix) at `options`; "this view has nothing to
/// export yet" when `plot` is null. Returns the error, empty on success.
QString exportPlotFile(widgets::PlotWidget* plot, const QString& path,
                       const widgets::ExportOptions& options);

/// The save dialog for a figure (PNG, SVG, PDF) starting at `suggested`; empty when
/// cancelled.
QString askFigurePath(QWidget* parent, const QString& suggested);

/// The Export figure... button of the Analysis and Probe tabs and of a FigureView, named
/// `objectName`; disabled until its owner shows a figure it can write.
QPushButton* newExportFigureButton(const QString& objectName, QWidget* parent);

/// Export figure... of a tab that writes a catalog figure (Analysis, Probe): asks where,
/// proposing `fileName` in `runDirectory`, writes it with the tab's exportFigure(path) and
/// emits the tab's exported(path) or exportFailed(error); nothing when the person cancels.
template <class Tab>
void askAndExportFigure(Tab* tab, const QString& runDirectory, const QString& fileName) {
  const QString suggested =
      runDirectory.isEmpty() ? fileName : runDirectory + QLatin1Char('/') + fileName;
  const QString path = askFigurePath(tab, suggested);
  if (path.isEmpty()) return;
  const QString error = tab->exportFigure(path);
  if (error.isEmpty())
    emit tab->exported(path);
  else
    emit tab->exportFailed(error);
}

/// Writes the catalog figure `figure` of the run folder `runDir` at checkpoint `step` to
/// `path`, as `attnlab-cli export RUN --figure NAME --step S` does. Returns the error (what
/// and where), empty on success.
QString exportCatalogFigure(const std::string& figure, const std::string& runDir, std::int64_t step,
                            const QString& path);

}  // namespace attnlab::app
