#pragma once

// One catalog figure built from runs (figures::buildFigure, the code `attnlab-cli export`
// draws with), shown as a view: the plot, what it reproduces, where its data came from, and
// Export... at a chosen size and DPI. The Figures menu opens these as tabs; the Compare tab
// shows its comparison figures in one.

#include "app/gui/panels/run_view.h"
#include "widgets/plots/plot_export.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace attnlab::figures {
struct Figure;
}
namespace attnlab::widgets {
class PlotWidget;
struct Theme;
}  // namespace attnlab::widgets

namespace attnlab::app {

class FigureView : public QWidget, public RunView {
  Q_OBJECT
 public:
  explicit FigureView(QWidget* parent = nullptr);
  ~FigureView() override;

  /// Builds catalog figure `name` from the run folders (`step`: the reports' checkpoint, the
  /// latest when empty). On failure the view shows the error (what, where, and the command
  /// that makes a missing input) and returns it; empty on success.
  QString build(const std::string& name, const QStringList& runDirs,
                std::optional<std::int64_t> step = std::nullopt);

  /// Writes the figure; the error (what and where), empty on success. The old file is kept
  /// on failure.
  QString exportTo(const QString& path, const widgets::ExportOptions& options);
  /// The figure's own export size and DPI (the catalog's, or larger where the data need it).
  widgets::ExportOptions defaultOptions() const;

  /// The figure shown, null before a successful build.
  widgets::PlotWidget* plot() const { return m_plot; }
  QString figureName() const { return m_name; }
  QString error() const { return m_error; }
  /// The provenance lines shown under the title ("run: checkpoint step 8, analysis.json").
  QString provenanceText() const;
  void setTheme(const widgets::Theme& theme) override;
  /// A figure tab keeps the runs it was built from: the sidebar's selection leaves it be.
  void setRuns(const QList<RunSession*>&) override {}
  QString exportCurrentFigure(const QString& path, const widgets::ExportOptions& options) override {
    return exportTo(path, options);
  }

 signals:
  /// Export... wrote `path` (through the export dialog).
  void exported(const QString& path);
  void exportFailed(const QString& error);

 private:
  void clear();
  void askExport();

  QString m_name;
  QString m_error;
  QString m_folder;  // where Export... proposes to write: the first run's folder
  widgets::PlotWidget* m_plot = nullptr;  // owned by the layout
  widgets::ExportOptions m_defaults;
  QLabel* m_heading = nullptr;
  QLabel* m_provenance = nullptr;
  QLabel* m_message = nullptr;
  QPushButton* m_exportButton = nullptr;
  QVBoxLayout* m_layout = nullptr;
};

}  // namespace attnlab::app
