#pragma once

// The Analysis tab: the attention analysis of one run (the first selected) as views. It
// lists the reports `attnlab-cli analyze` wrote under <run>/analysis/, or opens any
// analysis.json, reads it off the GUI thread and shows it in views (tabs), each in its own
// file and drawn by figures/ as `attnlab-cli export` draws it:
//   Violins             entropy per layer x head (RealFormer Fig. 4) or adjacent-layer JSD (Fig. 6)
//   Head summaries      Clark et al.'s table (sortable) and Fig. 2 scatter
//   Head similarity     all-pairs head JSD as a matrix or a 2-D MDS map (Clark et al. Fig. 6)
//   Guidance conformity distance of each head to the guidance patterns
//   Over training       median entropy / JSD per head against step, with a step slider
// It computes nothing but the MDS of the heads: the numbers are the report's.

#include "app/gui/panels/analysis_run_options.h"
#include "app/gui/panels/newest_wins.h"
#include "app/gui/panels/run_view.h"
#include "app/gui/run_session.h"
#include "widgets/plots/theme.h"

#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

#include <memory>
#include <string>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QStackedLayout;
class QTableWidget;
class QTabWidget;

namespace attnlab::analysis {
struct AnalysisReport;
}
namespace attnlab::widgets {
class ViolinGrid;
}

namespace attnlab::app {

class AnalysisController;
class AnalysisBeyondView;
class AnalysisGuidanceView;
class AnalysisSimilarityView;
class AnalysisSummaryView;
class AnalysisTrainingView;
class AnalysisView;
class JobBar;
class ReportPicker;

class AnalysisPanel : public QWidget, public RunView {
  Q_OBJECT
 public:
  /// Which violins are drawn.
  enum class Statistic { Entropy, AdjacentJsd };
  /// The views, in tab order.
  enum class View {
    Violins,
    HeadSummaries,
    HeadSimilarity,
    Guidance,
    OverTraining,
    Rollout,
    Norms,
    Lens,
    HeadImportance,
    Pruning
  };

  explicit AnalysisPanel(QWidget* parent = nullptr);
  ~AnalysisPanel() override;

  /// The runs selected in the sidebar; the panel lists the first one's reports.
  void setRuns(const QList<RunSession*>& runs) override;
  void setTheme(const widgets::Theme& theme) override;
  /// File > Export figure on this tab.
  QString exportCurrentFigure(const QString& path, const widgets::ExportOptions& options) override;
  /// The controller that runs the analyses (owned by the window, shared with the Probe and
  /// Compare tabs): Run analysis starts its job there, the job bar shows its progress and
  /// Cancel stops it.
  void setAnalysisController(AnalysisController* controller);

  /// The choices of the next Run analysis (evaluation set, pairwise JSD, every checkpoint),
  /// as the Options... popup beside the button holds them.
  AnalysisRunOptions runOptions() const;
  AnalysisRunOptionsButton* runOptionsButton() const { return m_runOptions; }

  /// The analysis.json files under <run>/analysis/, by step.
  QStringList reportFiles() const;
  /// Reads `path` (an analysis.json) off the GUI thread; reportLoaded() or loadFailed().
  void openReport(const QString& path);
  /// The report shown (nullptr before one is loaded).
  const analysis::AnalysisReport* report() const { return m_report.get(); }
  QString reportPath() const { return m_reportPath; }

  /// Writes the figure of the view shown to `path` (.png, .svg or .pdf) through the figures
  /// library, as `attnlab-cli export RUN --figure currentFigureName() --step
  /// currentFigureStep()` does (a view narrowed to one guidance pattern writes that plot);
  /// returns the error, empty on success.
  QString exportFigure(const QString& path);
  /// The catalog figure the view shown is ("entropy-violins", "jsd-violins", "clark-fig2",
  /// "head-jsd-matrix", "head-jsd-mds", "guidance-conformity", "training-statistics"); empty
  /// when the view shows nothing to export.
  QString currentFigureName() const;
  /// The checkpoint step of the report shown (the figure's --step); -1 without a report.
  qint64 currentFigureStep() const;

  void setView(View view);
  View view() const;
  QTabWidget* viewTabs() const { return m_views; }
  AnalysisSummaryView* summaryView() const { return m_summaryView; }
  AnalysisSimilarityView* similarityView() const { return m_similarityView; }
  AnalysisGuidanceView* guidanceView() const { return m_guidanceView; }
  AnalysisTrainingView* trainingView() const { return m_trainingView; }
  AnalysisBeyondView* rolloutView() const { return m_rolloutView; }
  AnalysisBeyondView* normsView() const { return m_normsView; }
  AnalysisBeyondView* lensView() const { return m_lensView; }
  AnalysisBeyondView* headImportanceView() const { return m_headImportanceView; }
  AnalysisBeyondView* pruningView() const { return m_pruningView; }

  void setStatistic(Statistic statistic);
  Statistic statistic() const { return m_statistic; }
  widgets::ViolinGrid* violins() const { return m_violins; }
  QTableWidget* headTable() const;

  /// The analysis.json files of a run folder: <dir>/analysis/*/analysis.json, by step.
  static QStringList findReports(const QString& runDirectory);

 signals:
  /// Export figure... wrote `path`, or failed (the window tells the person, as for every tab).
  void exported(const QString& path);
  void exportFailed(const QString& error);
  void reportLoaded(const QString& path);
  void loadFailed(const QString& message);

 private:
  // The constructor's parts, in the order the tab reads from the top.
  QHBoxLayout* buildToolbar();
  QLabel* buildSummary();
  QTabWidget* buildViews();
  void addBeyondViews();
  void connectControls();

  void runClicked();
  void rescan();
  void showReport(std::shared_ptr<analysis::AnalysisReport> report, const QString& path);
  void showFailure(const QString& message);
  void drawViolins();
  void updateExportButton();
  AnalysisView* currentView() const;
  std::string runName() const;
  void chooseExport();
  void analysisFinished(const ReportJobEnd& end);

  QPointer<RunSession> m_run;
  QPointer<AnalysisController> m_controller;
  std::shared_ptr<analysis::AnalysisReport> m_report;
  QString m_reportPath;
  Statistic m_statistic = Statistic::Entropy;
  NewestWins m_loads;  // the report asked for last is the one shown
  widgets::Theme m_theme = widgets::Theme::light();

  ReportPicker* m_picker = nullptr;
  QComboBox* m_statisticBox = nullptr;
  QPushButton* m_exportButton = nullptr;
  JobBar* m_jobBar = nullptr;
  AnalysisRunOptionsButton* m_runOptions = nullptr;
  QLabel* m_summary = nullptr;
  QStackedLayout* m_stack = nullptr;
  QLabel* m_placeholder = nullptr;
  QTabWidget* m_views = nullptr;
  widgets::ViolinGrid* m_violins = nullptr;
  AnalysisSummaryView* m_summaryView = nullptr;
  AnalysisSimilarityView* m_similarityView = nullptr;
  AnalysisGuidanceView* m_guidanceView = nullptr;
  AnalysisTrainingView* m_trainingView = nullptr;
  AnalysisBeyondView* m_rolloutView = nullptr;
  AnalysisBeyondView* m_headImportanceView = nullptr;
  AnalysisBeyondView* m_pruningView = nullptr;
  AnalysisBeyondView* m_normsView = nullptr;
  AnalysisBeyondView* m_lensView = nullptr;
  /// The views drawn from the report (every tab but the violins).
  std::vector<AnalysisView*> reportViews() const;
  bool m_violinsDrawn = false;
};

}  // namespace attnlab::app
