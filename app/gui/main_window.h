#pragma once

#include "app/gui/run_session.h"
#include "widgets/plots/plot_export.h"

#include <QMainWindow>

#include <memory>

class QLabel;
class QMenu;
class QStackedWidget;
class QTabWidget;

namespace attnlab::core {
struct RunConfig;
}
namespace attnlab::widgets {
struct Theme;
}

namespace attnlab::app {

class AppSettings;
class AttentionPanel;
class ConsoleDock;
class CurvesPanel;
class DistributedRunLauncher;
class OpenedRuns;
class RunStatusBar;
class RunView;
class RunsPanel;
class TrainingController;
class TrainingSession;
class ThemeController;
class VariantsPanel;
class WelcomePanel;
class AnalysisPanel;
class AnalysisController;
class InspectorPanel;
class ProbePanel;
class ComparePanel;
class FigureView;
class PlotContextMenu;
class ReportExportController;

/// The workbench's top-level window. It stays small: it builds the menus, docks and tabs
/// and wires them to the controllers (OpenedRuns, TrainingController, AppSettings); every
/// view lives in its own file under panels/, and no engine object lives here.
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// The LibTorch / BLAS / device line (Help > About shows it).
  QString environmentSummary() const;

  /// Opens a run folder (or its run.h5); errors go to the console and a message box.
  RunSession* openRun(const QString& path);
  /// Opens each; runs named together are looked at together: all selected (curves
  /// overlaid, Compare).
  void openRuns(const QStringList& paths);
  /// Shows a tab by its title, and a tab inside it after a slash ("Analysis/Head
  /// summaries"), case-insensitively. False when no tab has that title.
  bool showView(const QString& spec);
  /// File > Export figure (Ctrl+E) without the dialog: the current tab's figure to `path`
  /// (.png, .svg or .pdf, by its suffix). Analysis and Probe export the catalog figure as
  /// attnlab-cli export does; Attention and Inspect the enlarged head; Curves and Variants
  /// their first plot. Returns the error, empty on success (the old file is kept on failure).
  QString exportCurrentView(const QString& path);
  /// The same at a chosen size and DPI (the export dialog's choice).
  QString exportCurrentView(const QString& path, const widgets::ExportOptions& options);
  /// Figures > (one action per catalog figure): builds `figure` from the runs selected in
  /// the sidebar and opens it as a tab that can be exported. Returns the view (it shows the
  /// error when an input is missing); null when no run is selected.
  FigureView* openFigure(const QString& figure);
  /// File > Export report without the dialog: the bundle of the current run into `outDir`
  /// (written by attnlab-cli export --report in a child process; exportReportFinished
  /// follows). Returns the error when it cannot start, empty otherwise.
  QString exportReport(const QString& outDir);
  /// Trains `config` in `directory` (resumes when it holds a checkpoint): inside the app
  /// for 1 process, else data-parallel in `processes` processes of attnlab-cli (followed
  /// like any run, shown as one). The window trains one run at a time either way.
  bool startTraining(const core::RunConfig& config, const QString& directory, int processes = 1);
  /// Resumes a stopped run from its config.toml, in as many processes as this window last
  /// trained it in, else as its log says its latest start or resume used (the global batch
  /// stays the same).
  bool resumeRun(RunSession* run);
  /// True while this window trains a run, here or through attnlab-cli processes.
  bool isTraining() const;

  OpenedRuns* openedRuns() const { return m_runs; }
  TrainingController* training() const { return m_training; }
  DistributedRunLauncher* launcher() const { return m_launcher; }
  /// The back-end training a run now (one of the two above), null when none does.
  TrainingSession* trainingSession() const { return m_session; }
  RunsPanel* runsPanel() const { return m_runsPanel; }
  CurvesPanel* curvesPanel() const { return m_curves; }
  AttentionPanel* attentionPanel() const { return m_attention; }
  VariantsPanel* variantsPanel() const { return m_variants; }
  AnalysisPanel* analysisPanel() const { return m_analysis; }
  InspectorPanel* inspectorPanel() const { return m_inspector; }
  ProbePanel* probePanel() const { return m_probe; }
  ComparePanel* comparePanel() const { return m_compare; }
  PlotContextMenu* plotContextMenu() const { return m_plotMenu; }
  ReportExportController* reportExport() const { return m_reportExport; }
  AnalysisController* analysisController() const { return m_analysisController; }
  ConsoleDock* console() const { return m_console; }
  RunStatusBar* runStatusBar() const { return m_statusBar; }
  QTabWidget* views() const { return m_tabs; }
  WelcomePanel* welcome() const { return m_welcome; }
  /// The last error shown to the person (tests assert its text).
  QString lastError() const { return m_lastError; }

 public slots:
  void newRun();
  void openRunDialog();
  void exportFigureDialog();
  void exportReportDialog();
  /// Closes a run's views (not while this window trains it).
  void closeRun(RunSession* run);
  void resetLayout();
  void showAbout();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void buildMenus();
  void buildDocks();
  void wireSession(TrainingSession* session);
  /// The session's run ended (finished): status bar, console, actions, a pending close.
  void trainingEnded(RunStatus status, const QString& error);
  void stopTraining();
  /// The tabs, as views of the selected runs.
  QList<RunView*> runViews() const;
  void showSelection(const QList<RunSession*>& runs);
  /// The theme's colours on the runs and every view.
  void showTheme(const widgets::Theme& theme);
  void showError(const QString& text);
  /// One place tells the person what an export did: the status bar, or an error box.
  void exportSucceeded(const QString& path);
  void exportFailed(const QString& error);
  /// Every exporter (a tab, a figure tab, the plots' context menu) has exported(path) and
  /// exportFailed(error).
  template <class Exporter>
  void reportExportsOf(Exporter* source) {
    connect(source, &Exporter::exported, this, &MainWindow::exportSucceeded);
    connect(source, &Exporter::exportFailed, this, &MainWindow::exportFailed);
  }
  void updateActions();
  void rebuildRecentMenu();
  void updateWelcome();
  void buildFiguresMenu();

  AppSettings* m_settings = nullptr;
  ThemeController* m_theme = nullptr;
  OpenedRuns* m_runs = nullptr;
  TrainingController* m_training = nullptr;      // trains in this process
  DistributedRunLauncher* m_launcher = nullptr;  // trains in attnlab-cli's processes
  TrainingSession* m_session = nullptr;          // the one of the two training now, if any
  RunSession* m_sessionRun = nullptr;            // the run it trains
  RunsPanel* m_runsPanel = nullptr;
  CurvesPanel* m_curves = nullptr;
  AttentionPanel* m_attention = nullptr;
  VariantsPanel* m_variants = nullptr;
  AnalysisPanel* m_analysis = nullptr;
  AnalysisController* m_analysisController = nullptr;
  InspectorPanel* m_inspector = nullptr;
  ProbePanel* m_probe = nullptr;
  ComparePanel* m_compare = nullptr;
  PlotContextMenu* m_plotMenu = nullptr;
  ReportExportController* m_reportExport = nullptr;
  QAction* m_exportReportAction = nullptr;
  QAction* m_cancelReportAction = nullptr;
  ConsoleDock* m_console = nullptr;
  RunStatusBar* m_statusBar = nullptr;
  QTabWidget* m_tabs = nullptr;
  WelcomePanel* m_welcome = nullptr;
  QStackedWidget* m_centre = nullptr;  // the welcome while no run is open, else the tabs
  QMenu* m_recentMenu = nullptr;
  QAction* m_pauseAction = nullptr;
  QAction* m_resumeAction = nullptr;
  QAction* m_stopAction = nullptr;
  QAction* m_checkpointAction = nullptr;
  QByteArray m_defaultState;
  QString m_lastError;
  bool m_closeWhenStopped = false;
};

}  // namespace attnlab::app
