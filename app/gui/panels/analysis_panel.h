#pragma once

// The Analysis tab: the attention analysis of one run (the first selected) as views. It
// lists the reports `attnlab-cli analyze` wrote under <run>/analysis/, or opens any
// analysis.json, reads it off the GUI thread and shows the entropy violins per layer x head
// (RealFormer's Fig. 4 layout and colour classes), the adjacent-layer JSD violins (Fig. 6)
// and the head summaries of Clark et al. ("What does BERT look at?") as a sortable table.
// It computes nothing: the numbers are the report's, the drawing the widgets'.

#include "app/gui/run_session.h"
#include "widgets/plots/theme.h"

#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QStackedLayout;
class QTableWidget;

namespace attnlab::analysis {
struct AnalysisReport;
}
namespace attnlab::widgets {
class ViolinGrid;
}

namespace attnlab::app {

class AnalysisController;
class JobBar;

class AnalysisPanel : public QWidget {
  Q_OBJECT
 public:
  /// Which violins are drawn.
  enum class Statistic { Entropy, AdjacentJsd };

  explicit AnalysisPanel(QWidget* parent = nullptr);
  ~AnalysisPanel() override;

  /// The runs selected in the sidebar; the panel lists the first one's reports.
  void setRuns(const QList<RunSession*>& runs);
  void setTheme(const widgets::Theme& theme);
  /// The controller that runs analyses (owned by the window): its progress and result are
  /// shown here, and the Cancel button stops it.
  void setAnalysisController(AnalysisController* controller);

  /// The analysis.json files under <run>/analysis/, by step.
  QStringList reportFiles() const { return m_files; }
  /// Reads `path` (an analysis.json) off the GUI thread; reportLoaded() or loadFailed().
  void openReport(const QString& path);
  /// The report shown (nullptr before one is loaded).
  const analysis::AnalysisReport* report() const { return m_report.get(); }
  QString reportPath() const { return m_reportPath; }

  /// Writes the violins shown to `path` (.png, .svg or .pdf) through the figures library,
  /// as `attnlab-cli export` does; returns the error, empty on success.
  QString exportFigure(const QString& path);
  /// "entropy-violins" or "jsd-violins": the catalog figure the violins shown are.
  QString currentFigureName() const;

  void setStatistic(Statistic statistic);
  Statistic statistic() const { return m_statistic; }
  widgets::ViolinGrid* violins() const { return m_violins; }
  QTableWidget* headTable() const { return m_table; }

  /// The analysis.json files of a run folder: <dir>/analysis/*/analysis.json, by step.
  static QStringList findReports(const QString& runDirectory);

 signals:
  void reportLoaded(const QString& path);
  void loadFailed(const QString& message);
  /// Run analysis was clicked for `run` (the window starts the controller).
  void analysisRequested(attnlab::app::RunSession* run);

 private:
  void rescan();
  void showReport(std::shared_ptr<analysis::AnalysisReport> report, const QString& path);
  void showFailure(const QString& message);
  void drawViolins();
  void fillTable();
  void chooseFile();
  void chooseExport();
  void analysisFinished(bool ok, bool cancelled, const QString& message, const QString& report);

  QPointer<RunSession> m_run;
  QStringList m_files;
  std::shared_ptr<analysis::AnalysisReport> m_report;
  QString m_reportPath;
  Statistic m_statistic = Statistic::Entropy;
  int m_loads = 0;  // newest request wins when reads overlap
  widgets::Theme m_theme = widgets::Theme::light();

  QComboBox* m_reportBox = nullptr;
  QComboBox* m_statisticBox = nullptr;
  QPushButton* m_openButton = nullptr;
  QPushButton* m_exportButton = nullptr;
  JobBar* m_jobBar = nullptr;
  QLabel* m_summary = nullptr;
  QStackedLayout* m_stack = nullptr;
  QLabel* m_placeholder = nullptr;
  widgets::ViolinGrid* m_violins = nullptr;
  QTableWidget* m_table = nullptr;
};

}  // namespace attnlab::app
