#include "app/gui/main_window.h"

#include "app/gui/analysis_controller.h"
#include "app/gui/app_settings.h"
#include "app/gui/close_while_training.h"
#include "app/gui/jobs/job_bar.h"
#include "app/gui/new_run/new_run_dialog.h"
#include "app/gui/notices.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/console_dock.h"
#include "app/gui/panels/run_status_bar.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/panels/welcome_panel.h"
#include "app/gui/plot_context_menu.h"
#include "app/gui/theme_controller.h"
#include "app/gui/training_coordinator.h"
#include "app/gui/view_tabs.h"
#include "app/gui/window_exports.h"
#include "app/gui/window_menus.h"

#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QListWidget>
#include <QMimeData>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>

namespace attnlab::app {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("AttnLab"));
  setObjectName(QStringLiteral("mainWindow"));
  resize(1280, 820);
  setAcceptDrops(true);
  setDockNestingEnabled(true);

  m_parts.settings = new AppSettings(this);
  m_parts.theme = new ThemeController(m_parts.settings, this);
  m_parts.theme->followSystemThemeOf(this);
  m_parts.runs = new OpenedRuns(this);
  m_parts.training = new TrainingCoordinator(m_parts.runs, m_parts.settings, this);
  m_parts.analysis = new AnalysisController(this);
  // While a run trains here the statistics take one thread, so the engine keeps its share.
  m_parts.analysis->setThreadPolicy([this] { return m_parts.training->isTraining() ? 1 : 0; });
  buildDocks();
  m_parts.notices = new Notices(this, m_parts.console);
  buildCentre();
  m_parts.exports = new WindowExports(
      {m_parts.views, m_parts.runsPanel, m_parts.settings, m_parts.notices, this}, this);
  m_runActions = buildWindowMenus(*this);
  m_parts.statusBar = new RunStatusBar(this);
  statusBar()->addPermanentWidget(m_parts.statusBar);
  statusBar()->addPermanentWidget(m_parts.exports->jobBar());
  statusBar()->showMessage(QStringLiteral("Ready: File > New run (Ctrl+N) or Open run (Ctrl+O)"));

  wireRuns();
  wireTraining();
  connect(m_parts.theme, &ThemeController::themeChanged, m_parts.runs, &OpenedRuns::setTheme);
  connect(m_parts.theme, &ThemeController::themeChanged, m_parts.views, &ViewTabs::setTheme);
  m_parts.theme->apply();
  m_defaultState = saveState();
  restoreGeometry(m_parts.settings->windowGeometry());
  restoreState(m_parts.settings->windowState());
  updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildDocks() {
  m_parts.runsPanel = new RunsPanel(this);
  auto* runsDock = new QDockWidget(QStringLiteral("Runs"), this);
  runsDock->setObjectName(QStringLiteral("runsDock"));
  runsDock->setWidget(m_parts.runsPanel);
  addDockWidget(Qt::LeftDockWidgetArea, runsDock);

  m_parts.console = new ConsoleDock(this);
  addDockWidget(Qt::BottomDockWidgetArea, m_parts.console);
  resizeDocks({runsDock}, {260}, Qt::Horizontal);
  resizeDocks({m_parts.console}, {160}, Qt::Vertical);
}

void MainWindow::buildCentre() {
  m_parts.views = new ViewTabs(this);
  m_parts.views->setJobs(m_parts.analysis);  // every tab starts its own jobs
  m_parts.notices->reportExportsOf(m_parts.views);
  // While no run is open the window offers ways to begin instead of empty tabs.
  m_parts.welcome = new WelcomePanel(this);
  connect(m_parts.welcome, &WelcomePanel::newRunRequested, this, &MainWindow::newRun);
  connect(m_parts.welcome, &WelcomePanel::openRunRequested, this, &MainWindow::openRunDialog);
  connect(m_parts.welcome, &WelcomePanel::runRequested, this,
          [this](const QString& dir) { openRun(dir); });
  m_centre = new QStackedWidget(this);
  m_centre->addWidget(m_parts.welcome);
  m_centre->addWidget(m_parts.views);
  setCentralWidget(m_centre);
  // Every plot's context menu: Export figure... (file, size, DPI) and Copy image.
  m_parts.plotMenu = new PlotContextMenu(this);
  m_parts.plotMenu->setFolder([this] { return m_parts.settings->runsFolder(); });
  m_parts.notices->reportExportsOf(m_parts.plotMenu);
}

void MainWindow::wireRuns() {
  OpenedRuns* runs = m_parts.runs;
  RunsPanel* panel = m_parts.runsPanel;
  connect(runs, &OpenedRuns::runOpened, this, [this, panel](RunSession* run) {
    panel->addRun(run);
    m_parts.notices->followMessages(run, [this, run] { return run == m_parts.training->run(); });
    connect(run, &RunSession::statusChanged, this, &MainWindow::updateActions);
    panel->selectOnly(run);
    updateWelcome();
  });
  connect(runs, &OpenedRuns::runClosing, this, [this, panel](RunSession* run) {
    panel->removeRun(run);
    // The closing run is still in the list until this signal returns.
    QTimer::singleShot(0, this, &MainWindow::updateWelcome);
  });
  connect(m_parts.settings, &AppSettings::recentRunsChanged, this, &MainWindow::updateWelcome);
  updateWelcome();
  connect(runs, &OpenedRuns::openFailed, m_parts.notices,
          [this](const QString&, const QString& message) { m_parts.notices->error(message); });
  connect(panel, &RunsPanel::selectionChanged, this, [this](const QList<RunSession*>& selected) {
    m_parts.views->setRuns(selected);
    updateActions();
  });
  connect(panel, &RunsPanel::resumeRequested, m_parts.training, &TrainingCoordinator::resume);
  connect(panel, &RunsPanel::stopRequested, m_parts.training, &TrainingCoordinator::stopRun);
  connect(panel, &RunsPanel::closeRequested, this, &MainWindow::closeRun);
}

void MainWindow::wireTraining() {
  TrainingCoordinator* training = m_parts.training;
  RunStatusBar* bar = m_parts.statusBar;
  connect(training, &TrainingCoordinator::startFailed, m_parts.notices, &Notices::error);
  connect(training, &TrainingCoordinator::started, this, [this](RunSession* run) {
    statusBar()->clearMessage();  // the run's own progress replaces "Ready: ..."
    m_parts.runsPanel->selectOnly(run);
  });
  connect(training, &TrainingCoordinator::progress, bar,
          [bar](RunSession* run, const EngineProgress& progress, RunStatus status) {
            bar->showProgress(run->name(), progress, status);
          });
  connect(training, &TrainingCoordinator::message, m_parts.notices, &Notices::runMessage);
  connect(training, &TrainingCoordinator::ended, this,
          [this, bar](RunSession* run, RunStatus status, const QString& error) {
            bar->showIdle();
            m_parts.notices->runEnded(run, status, error);
            if (m_closeWhenStopped) close();
          });
  connect(training, &TrainingCoordinator::stateChanged, this, &MainWindow::updateActions);
}

RunSession* MainWindow::openRun(const QString& path) {
  RunSession* run = m_parts.runs->open(path);
  if (run != nullptr) m_parts.settings->addRecentRun(run->directory());
  return run;
}

void MainWindow::openRuns(const QStringList& paths) {
  for (const QString& path : paths) openRun(path);
  if (paths.size() > 1) m_parts.runsPanel->list()->selectAll();
}

bool MainWindow::showView(const QString& spec) {
  return m_parts.views->showView(spec);
}

void MainWindow::newRun() {
  auto* dialog = new NewRunDialog(m_parts.settings, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    m_parts.training->start(dialog->config(), dialog->runDirectory(), dialog->processes());
  });
  dialog->open();
}

void MainWindow::closeRun(RunSession* run) {
  // The run this window trains stays open until its engine thread (or its processes) ended.
  if (run == nullptr) return;
  if (run == m_parts.training->run() && m_parts.training->isTraining()) return;
  m_parts.runs->close(run);
}

void MainWindow::openRunDialog() {
  const QString dir = QFileDialog::getExistingDirectory(this, QStringLiteral("Open run folder"),
                                                        m_parts.settings->runsFolder());
  if (!dir.isEmpty()) openRun(dir);
}

void MainWindow::openModelDialog() {
  // Model folders live wherever a person downloaded them, not in the runs folder: start where
  // the last one was opened from (or the home folder).
  const QString dir = QFileDialog::getExistingDirectory(
      this, QStringLiteral("Open a Hugging Face model folder (config.json, model.safetensors)"),
      m_parts.settings->modelDialogFolder());
  if (!dir.isEmpty() && openRun(dir) != nullptr) m_parts.settings->setLastModelFolder(dir);
}

void MainWindow::updateWelcome() {
  const bool empty = m_parts.runs->runs().empty();
  if (empty)
    m_parts.welcome->setRuns(WelcomePanel::findDemoRun(m_parts.settings->runsFolder()),
                             m_parts.settings->recentRuns());
  m_centre->setCurrentWidget(empty ? static_cast<QWidget*>(m_parts.welcome) : m_parts.views);
}

void MainWindow::updateActions() {
  m_runActions.update(*m_parts.training,
                      m_parts.runsPanel ? m_parts.runsPanel->currentRun() : nullptr);
}

void MainWindow::resetLayout() {
  restoreState(m_defaultState);
  for (QDockWidget* dock : findChildren<QDockWidget*>()) dock->show();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!mayClose(this, *m_parts.training, m_closeWhenStopped)) return event->ignore();
  m_parts.settings->saveWindow(saveGeometry(), saveState());
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) openRun(url.toLocalFile());
  event->acceptProposedAction();
}

FigureView* MainWindow::openFigure(const QString& figure) {
  QStringList dirs;
  for (RunSession* run : m_parts.runsPanel->selectedRuns()) dirs << run->directory();
  if (dirs.isEmpty()) {
    m_parts.notices->error(
        QStringLiteral("Select the runs to draw %1 from in the Runs list first").arg(figure));
    return nullptr;
  }
  QString error;
  FigureView* view = m_parts.views->openFigure(figure, dirs, m_parts.theme->theme(), &error);
  if (!error.isEmpty())
    m_parts.console->appendNote(QStringLiteral("%1: %2").arg(figure, error), true);
  return view;
}

}  // namespace attnlab::app
