#pragma once

// The Probe tab: a run's coreference probe reports (`attnlab-cli probe coref` writes
// <run>/analysis/coref-step-S/coref.json; any coref.json can be opened), read off the GUI
// thread: the layer x head antecedent accuracy with the best head framed and each layer's
// best head beside the baselines (drawn by the figures library, as `attnlab-cli export
// --figure coref-heads`), and a table of the best head, the mean over heads and the four
// baselines. Run probe takes the dataset (synthetic with its size, seed and distractor, or a
// CoNLL-2012 or Lin et al. file chosen with a file picker); clicking a head lists the kept
// examples it gets right and wrong (ProbeExamplesView, from coref_examples.json).

#include "app/gui/analysis_controller.h"
#include "app/gui/panels/newest_wins.h"
#include "app/gui/panels/run_view.h"
#include "app/gui/run_session.h"
#include "widgets/plots/theme.h"

#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <string>

class QCheckBox;
class QHBoxLayout;
class QSpinBox;
class QLineEdit;
class QLabel;
class QPushButton;
class QSplitter;
class QTableWidget;
class QVBoxLayout;

namespace attnlab::analysis {
struct CorefProbeReport;
}
namespace attnlab::analysis::coref {
struct ProbeExamples;
}
namespace attnlab::widgets {
class ProbeMatrixPlot;
}

namespace attnlab::app {

class AnalysisController;
class JobBar;
class ProbeExamplesView;
class ReportPicker;

class ProbePanel : public QWidget, public RunView {
  Q_OBJECT
 public:
  explicit ProbePanel(QWidget* parent = nullptr);
  ~ProbePanel() override;

  void setRuns(const QList<RunSession*>& runs) override;
  void setTheme(const widgets::Theme& theme) override;
  /// File > Export figure on this tab.
  QString exportCurrentFigure(const QString& path, const widgets::ExportOptions& options) override;
  /// The controller that runs probes (owned by the window, shared with the Analysis and
  /// Compare tabs): Run probe starts its job there.
  void setAnalysisController(AnalysisController* controller);
  /// The dataset Run probe uses: synthetic, conll:PATH or lin:PATH (the CLI's --dataset).
  QString dataset() const;
  /// What Run probe asks for: the dataset and the synthetic options set on the tab.
  ProbeRequest request() const;

  /// Reads `path` (a coref.json) off the GUI thread; reportLoaded() or loadFailed().
  void openReport(const QString& path);
  QStringList reportFiles() const;
  const analysis::CorefProbeReport* report() const { return m_report.get(); }
  /// Writes the matrix shown to `path` (.png, .svg or .pdf) as attnlab-cli export does;
  /// returns the error, empty on success.
  QString exportFigure(const QString& path);
  widgets::ProbeMatrixPlot* matrix() const { return m_matrix; }
  QTableWidget* summaryTable() const { return m_table; }
  ProbeExamplesView* examplesView() const { return m_examples; }
  /// The kept examples of the report shown (coref_examples.json); null when it has none.
  const analysis::coref::ProbeExamples* keptExamples() const { return m_kept.get(); }

 signals:
  /// Export figure... wrote `path`, or failed (the window tells the person, as for every tab).
  void exported(const QString& path);
  void exportFailed(const QString& error);
  void reportLoaded(const QString& path);
  /// The report's coref_examples.json was read (`ok`) or is missing or bad (`message`).
  void examplesLoaded(bool ok, const QString& message);
  void loadFailed(const QString& message);

 private:
  // The constructor's parts, in the order the tab reads from the top.
  QHBoxLayout* buildReportBar();
  QHBoxLayout* buildProbeOptions();
  void buildDatasetChoice(QHBoxLayout* options);
  void buildSyntheticOptions(QHBoxLayout* options);
  void buildSummary(QVBoxLayout* layout);
  QSplitter* buildResultViews();
  void connectControls();

  void rescan();
  void runProbe();
  void probeFinished(const ReportJobEnd& end);
  void showReport(std::shared_ptr<analysis::CorefProbeReport> report, const QString& path);
  void drawMatrix(const analysis::CorefProbeReport& report, const std::string& runName,
                  const QString& path);
  void showSkipped(const analysis::CorefProbeReport& report);
  void fillSummaryTable(const analysis::CorefProbeReport& report);
  void chooseDataFile(const QString& prefix);
  void loadExamples(const QString& reportPath, NewestWins::Ticket request);
  void showExamples(std::shared_ptr<const analysis::coref::ProbeExamples> kept,
                    const QString& error);
  void updateOptions();
  void chooseExport();

  QPointer<RunSession> m_run;
  QPointer<AnalysisController> m_controller;
  std::shared_ptr<analysis::CorefProbeReport> m_report;
  std::shared_ptr<const analysis::coref::ProbeExamples> m_kept;
  QString m_reportPath;
  NewestWins m_loads;  // the report asked for last is the one shown, with its examples

  ReportPicker* m_picker = nullptr;
  QPushButton* m_exportButton = nullptr;
  QLineEdit* m_dataset = nullptr;
  QPushButton* m_conllButton = nullptr;
  QPushButton* m_linButton = nullptr;
  QSpinBox* m_size = nullptr;
  QSpinBox* m_seed = nullptr;
  QCheckBox* m_distractor = nullptr;
  QLabel* m_skipped = nullptr;
  ProbeExamplesView* m_examples = nullptr;
  JobBar* m_jobBar = nullptr;
  QLabel* m_summary = nullptr;
  widgets::ProbeMatrixPlot* m_matrix = nullptr;
  QTableWidget* m_table = nullptr;
};

}  // namespace attnlab::app
