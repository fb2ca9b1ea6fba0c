#pragma once

// The Compare tab: two or more runs selected in the sidebar, side by side. A table of what
// each run reached (final eval loss and accuracy, the probe's best head and mean, median
// entropy per layer: figures/run_summary.h, read off the GUI thread), and the comparison
// figures from the catalog drawn on one scale (RealFormer's violins, guidance's Fig. 3 and
// Table 8, the loss curves, the rollout and logit-lens summaries), or a per-run figure of
// each run side by side with one value axis (a variant's per-layer series, weights against
// norms).

#include "app/gui/panels/newest_wins.h"
#include "app/gui/panels/run_view.h"
#include "app/gui/run_session.h"
#include "figures/run_summary.h"
#include "widgets/plots/theme.h"

#include <QList>
#include <QPointer>
#include <QWidget>

#include <cstddef>
#include <vector>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTableWidget;

namespace attnlab::app {

class AnalysisController;
struct ReportJobEnd;
class FigureView;
class JobBar;

class ComparePanel : public QWidget, public RunView {
  Q_OBJECT
 public:
  explicit ComparePanel(QWidget* parent = nullptr);
  ~ComparePanel() override;

  void setRuns(const QList<RunSession*>& runs) override;
  void setTheme(const widgets::Theme& theme) override;
  /// File > Export figure on this tab.
  QString exportCurrentFigure(const QString& path, const widgets::ExportOptions& options) override;
  /// The controller that runs Compare heads (owned by the window, shared with the Analysis
  /// and Probe tabs: one job at a time): the button starts its job there, as they do.
  void setAnalysisController(AnalysisController* controller);
  JobBar* compareHeadsBar() const { return m_jobBar; }
  QLabel* compareHeadsMessage() const { return m_jobMessage; }

  /// Shows the comparison `key` (a catalog figure name, or "side:<figure>" for a per-run
  /// figure drawn once per run side by side); false when the combo has no such entry.
  bool showComparison(const QString& key);
  /// The comparison shown ("realformer-fig4", "side:asa-fig5", ...).
  QString currentComparison() const;
  /// Writes the table as CSV or Markdown (by the suffix); the error, empty on success.
  QString exportTable(const QString& path) const;
  /// Exports the figure shown (the first run's, for side-by-side figures).
  QString exportFigure(const QString& path) const;

  QTableWidget* table() const { return m_table; }
  QComboBox* comparisonBox() const { return m_comparison; }
  /// The figure views shown: one for a comparison figure, one per run side by side.
  QList<FigureView*> figureViews() const { return m_views; }
  const std::vector<figures::RunSummary>& summaries() const { return m_summaries; }

 signals:
  /// The table holds the selected runs' summaries.
  void summariesReady();
  /// The comparison figure(s) are drawn (or show why not).
  void comparisonShown(const QString& key);
  void exported(const QString& path);
  void exportFailed(const QString& error);

 private:
  void compareHeads();
  void headsCompared(const ReportJobEnd& end);
  void refresh();
  void loadSummaries();
  void fillTable();
  void fillRow(int row, const figures::RunSummary& summary, std::size_t layers);
  void fitTableHeight();
  void rebuildFigures();
  void chooseTableExport();

  QList<QPointer<RunSession>> m_runs;
  std::vector<figures::RunSummary> m_summaries;
  NewestWins m_summaryLoads;  // only the summaries of the runs selected now land
  widgets::Theme m_theme = widgets::Theme::light();

  QLabel* m_hint = nullptr;
  JobBar* m_jobBar = nullptr;
  QLabel* m_jobMessage = nullptr;
  QPointer<AnalysisController> m_controller;
  QComboBox* m_comparison = nullptr;
  QPushButton* m_tableExport = nullptr;
  QStackedWidget* m_stack = nullptr;
  QTableWidget* m_table = nullptr;
  QSplitter* m_split = nullptr;
  QWidget* m_figureArea = nullptr;
  QHBoxLayout* m_figureLayout = nullptr;
  QList<FigureView*> m_views;
};

}  // namespace attnlab::app
