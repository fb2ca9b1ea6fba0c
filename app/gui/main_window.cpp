#include "app/gui/main_window.h"

#include "app/gui/analysis_controller.h"
#include "app/gui/app_settings.h"
#include "app/gui/distributed_run_launcher.h"
#include "app/gui/new_run/new_run_dialog.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/analysis_panel.h"
#include "app/gui/panels/analysis_run_options.h"
#include "app/gui/panels/attention_panel.h"
#include "app/gui/panels/compare_panel.h"
#include "app/gui/panels/console_dock.h"
#include "app/gui/panels/curves_panel.h"
#include "app/gui/panels/export_figure_dialog.h"
#include "app/gui/panels/figure_view.h"
#include "app/gui/panels/inspector_panel.h"
#include "app/gui/panels/probe_panel.h"
#include "app/gui/panels/run_status_bar.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/panels/variants_panel.h"
#include "app/gui/panels/welcome_panel.h"
#include "app/gui/plot_context_menu.h"
#include "app/gui/report_export_controller.h"
#include "app/gui/theme_controller.h"
#include "app/gui/training_controller.h"
#include "core/config/config_loader.h"
#include "core/runtime/compute_environment.h"
#include "figures/figure_catalog.h"
#include "widgets/plots/plot_export.h"
#include "widgets/plots/theme.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QRegularExpression>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>

namespace attnlab::app {

namespace {
// How long the status bar keeps a message: a result, and an error (also shown in a box).
constexpr int kStatusMessageMs = 10000;
constexpr int kStatusErrorMs = 15000;
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("AttnLab"));
  setObjectName(QStringLiteral("mainWindow"));
  resize(1280, 820);
  setAcceptDrops(true);
  setDockNestingEnabled(true);

  m_settings = new AppSettings(this);
  m_theme = new ThemeController(m_settings, this);
  m_runs = new OpenedRuns(this);
  m_training = new TrainingController(this);
  m_launcher = new DistributedRunLauncher(this);

  // The main area: one tab per view of the selected runs. Part 2 adds tabs here.
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("viewTabs"));
  m_tabs->setDocumentMode(true);
  m_curves = new CurvesPanel(m_tabs);
  m_attention = new AttentionPanel(m_tabs);
  m_variants = new VariantsPanel(m_tabs);
  m_tabs->addTab(m_curves, QStringLiteral("Curves"));
  m_tabs->addTab(m_attention, QStringLiteral("Attention"));
  m_inspector = new InspectorPanel(m_tabs);
  m_tabs->addTab(m_inspector, QStringLiteral("Inspect"));
  m_tabs->addTab(m_variants, QStringLiteral("Variants"));
  m_analysis = new AnalysisPanel(m_tabs);
  m_analysisController = new AnalysisController(this);
  m_analysis->setAnalysisController(m_analysisController);
  connect(m_analysis, &AnalysisPanel::analysisRequested, this, [this](RunSession* run) {
    // While a run trains here the statistics take one thread, so the engine keeps its share.
    QString whyNot;
    if (!m_analysisController->start(run->directory(), std::nullopt, isTraining() ? 1 : 0, &whyNot,
                                     m_analysis->runOptions()))
      showError(whyNot);
  });
  m_tabs->addTab(m_analysis, QStringLiteral("Analysis"));
  m_probe = new ProbePanel(m_tabs);
  m_probe->setAnalysisController(m_analysisController);
  connect(m_probe, &ProbePanel::probeRequested, this,
          [this](RunSession* run, const ProbeRequest& dataset) {
            QString whyNot;
            if (!m_analysisController->startProbe(run->directory(), dataset, &whyNot))
              showError(whyNot);
          });
  m_tabs->addTab(m_probe, QStringLiteral("Probe"));
  m_compare = new ComparePanel(m_tabs);
  m_tabs->addTab(m_compare, QStringLiteral("Compare"));
  reportExportsOf(m_analysis);
  reportExportsOf(m_probe);
  reportExportsOf(m_compare);
  // Figure tabs (Figures menu) close; the views above stay.
  m_tabs->setTabsClosable(true);
  for (int i = 0; i < m_tabs->count(); ++i) {
    m_tabs->tabBar()->setTabButton(i, QTabBar::RightSide, nullptr);
    m_tabs->tabBar()->setTabButton(i, QTabBar::LeftSide, nullptr);
  }
  connect(m_tabs, &QTabWidget::tabCloseRequested, this, [this](int index) {
    if (auto* view = qobject_cast<FigureView*>(m_tabs->widget(index))) {
      m_tabs->removeTab(index);
      view->deleteLater();
    }
  });
  // While no run is open the window offers ways to begin instead of empty tabs.
  m_welcome = new WelcomePanel(this);
  connect(m_welcome, &WelcomePanel::newRunRequested, this, &MainWindow::newRun);
  connect(m_welcome, &WelcomePanel::openRunRequested, this, &MainWindow::openRunDialog);
  connect(m_welcome, &WelcomePanel::runRequested, this,
          [this](const QString& dir) { openRun(dir); });
  m_centre = new QStackedWidget(this);
  m_centre->addWidget(m_welcome);
  m_centre->addWidget(m_tabs);
  setCentralWidget(m_centre);

  // Every plot's context menu: Export figure... (file, size, DPI) and Copy image.
  m_plotMenu = new PlotContextMenu(this);
  m_plotMenu->setFolder([this] { return m_settings->runsFolder(); });
  reportExportsOf(m_plotMenu);
  m_reportExport = new ReportExportController(this);

  buildDocks();
  buildMenus();
  wireSession(m_training);
  wireSession(m_launcher);

  m_statusBar = new RunStatusBar(this);
  statusBar()->addPermanentWidget(m_statusBar);
  statusBar()->showMessage(QStringLiteral("Ready: File > New run (Ctrl+N) or Open run (Ctrl+O)"));

  connect(m_runs, &OpenedRuns::runOpened, this, [this](RunSession* run) {
    m_runsPanel->addRun(run);
    connect(run, &RunSession::messagesAppended, this, [this, run](int first) {
      // The session training it reports its run directly (wireSession): the log's copy of the same
      // events would print twice, also when it arrives after the training ended
      // (messagesShownUntil).
      if (run == m_sessionRun) return;
      const auto& lines = run->messages();
      for (int i = first; i < static_cast<int>(lines.size()); ++i) {
        const RunMessage& line = lines[static_cast<std::size_t>(i)];
        if (line.wallTime > run->messagesShownUntil())
          m_console->append(run->name(), run->colour(), line);
      }
    });
    connect(run, &RunSession::statusChanged, this, &MainWindow::updateActions);
    m_runsPanel->selectOnly(run);
    updateWelcome();
  });
  connect(m_runs, &OpenedRuns::runClosing, this, [this](RunSession* run) {
    m_runsPanel->removeRun(run);
    // The closing run is still in the list until this signal returns.
    QTimer::singleShot(0, this, &MainWindow::updateWelcome);
  });
  connect(m_settings, &AppSettings::recentRunsChanged, this, &MainWindow::updateWelcome);
  updateWelcome();
  connect(m_runs, &OpenedRuns::openFailed, this,
          [this](const QString&, const QString& message) { showError(message); });
  connect(m_runsPanel, &RunsPanel::selectionChanged, this, &MainWindow::showSelection);
  connect(m_runsPanel, &RunsPanel::resumeRequested, this,
          [this](RunSession* run) { resumeRun(run); });
  connect(m_runsPanel, &RunsPanel::stopRequested, this, [this](RunSession* run) {
    if (run == m_sessionRun) m_session->stop();
  });
  connect(m_runsPanel, &RunsPanel::closeRequested, this, &MainWindow::closeRun);

  connect(m_theme, &ThemeController::themeChanged, this, &MainWindow::showTheme);
  m_theme->apply();
  m_defaultState = saveState();
  restoreGeometry(m_settings->windowGeometry());
  restoreState(m_settings->windowState());
  updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildDocks() {
  m_runsPanel = new RunsPanel(this);
  auto* runsDock = new QDockWidget(QStringLiteral("Runs"), this);
  runsDock->setObjectName(QStringLiteral("runsDock"));
  runsDock->setWidget(m_runsPanel);
  addDockWidget(Qt::LeftDockWidgetArea, runsDock);

  m_console = new ConsoleDock(this);
  addDockWidget(Qt::BottomDockWidgetArea, m_console);
  resizeDocks({runsDock}, {260}, Qt::Horizontal);
  resizeDocks({m_console}, {160}, Qt::Vertical);
}

void MainWindow::buildMenus() {
  auto* file = menuBar()->addMenu(QStringLiteral("&File"));
  auto* newRun =
      file->addAction(QStringLiteral("&New run…"), QKeySequence::New, this, &MainWindow::newRun);
  newRun->setObjectName(QStringLiteral("newRunAction"));
  auto* open = file->addAction(QStringLiteral("&Open run…"), QKeySequence::Open, this,
                               &MainWindow::openRunDialog);
  open->setObjectName(QStringLiteral("openRunAction"));
  auto* exportFigure =
      file->addAction(QStringLiteral("&Export figure…"), QKeySequence(QStringLiteral("Ctrl+E")),
                      this, &MainWindow::exportFigureDialog);
  exportFigure->setObjectName(QStringLiteral("exportFigureAction"));
  exportFigure->setToolTip(QStringLiteral("The current view as PNG, SVG or PDF"));
  m_exportReportAction = file->addAction(QStringLiteral("Export &report…"),
                                         QKeySequence(QStringLiteral("Ctrl+Shift+E")), this,
                                         &MainWindow::exportReportDialog);
  m_exportReportAction->setObjectName(QStringLiteral("exportReportAction"));
  m_exportReportAction->setToolTip(
      QStringLiteral("Every figure of the current run in PNG, SVG and PDF, its reports, config "
                     "and an index, as attnlab-cli export --report writes them"));
  m_cancelReportAction = file->addAction(QStringLiteral("Cancel report export"), m_reportExport,
                                         &ReportExportController::cancel);
  m_cancelReportAction->setObjectName(QStringLiteral("cancelReportAction"));
  m_cancelReportAction->setEnabled(false);
  connect(m_reportExport, &ReportExportController::started, this, [this](const QString& dir) {
    m_cancelReportAction->setEnabled(true);
    statusBar()->showMessage(QStringLiteral("Exporting the report to %1…").arg(dir));
  });
  connect(m_reportExport, &ReportExportController::progress, this,
          [this](const QString& line) { statusBar()->showMessage(line); });
  connect(m_reportExport, &ReportExportController::finished, this,
          [this](bool ok, const QString& dir, const QString& error) {
            m_cancelReportAction->setEnabled(false);
            if (ok)
              statusBar()->showMessage(QStringLiteral("Report written to %1 (index.md)").arg(dir),
                                       kStatusErrorMs);
            else
              showError(QStringLiteral("Report export: %1").arg(error));
          });
  m_recentMenu = file->addMenu(QStringLiteral("Open &recent"));
  m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();
  QAction* closeRun = file->addAction(QStringLiteral("&Close run"), this,
                                      [this] { this->closeRun(m_runsPanel->currentRun()); });
  closeRun->setObjectName(QStringLiteral("closeRunAction"));
  // QKeySequence::Close is Ctrl+F4 on some platforms; Ctrl+W is what people press.
  closeRun->setShortcuts(
      {QKeySequence(QStringLiteral("Ctrl+W")), QKeySequence(QKeySequence::Close)});
  file->addSeparator();
  file->addAction(QStringLiteral("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  auto* runMenu = menuBar()->addMenu(QStringLiteral("&Run"));
  m_pauseAction = runMenu->addAction(QStringLiteral("&Pause"),
                                     QKeySequence(QStringLiteral("Ctrl+Shift+P")), this, [this] {
                                       if (m_session) m_session->pause();
                                     });
  m_pauseAction->setObjectName(QStringLiteral("pauseAction"));
  m_pauseAction->setToolTip(QStringLiteral("The engine finishes its step and holds"));
  m_resumeAction = runMenu->addAction(QStringLiteral("&Resume"),
                                      QKeySequence(QStringLiteral("Ctrl+Shift+R")), this, [this] {
                                        if (isTraining()) {
                                          m_session->resume();
                                        } else if (RunSession* run = m_runsPanel->currentRun()) {
                                          resumeRun(run);
                                        }
                                      });
  m_resumeAction->setObjectName(QStringLiteral("resumeAction"));
  m_stopAction = runMenu->addAction(QStringLiteral("&Stop"), QKeySequence(QStringLiteral("Ctrl+.")),
                                    this, &MainWindow::stopTraining);
  m_stopAction->setObjectName(QStringLiteral("stopAction"));
  m_stopAction->setToolTip(QStringLiteral("Finish the step, write a checkpoint, close the log"));
  m_checkpointAction =
      runMenu->addAction(QStringLiteral("&Checkpoint now"),
                         QKeySequence(QStringLiteral("Ctrl+Shift+S")), this, [this] {
                           if (m_session) m_session->checkpointNow();
                         });
  m_checkpointAction->setObjectName(QStringLiteral("checkpointAction"));

  auto* view = menuBar()->addMenu(QStringLiteral("&View"));
  for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
  view->addSeparator();
  auto* themes = new QActionGroup(this);
  const std::pair<QString, ThemeMode> modes[] = {
      {QStringLiteral("Follow the &system"), ThemeMode::System},
      {QStringLiteral("&Light"), ThemeMode::Light},
      {QStringLiteral("&Dark"), ThemeMode::Dark}};
  auto* themeMenu = view->addMenu(QStringLiteral("&Theme"));
  for (const auto& [label, mode] : modes) {
    QAction* a = themeMenu->addAction(label);
    a->setCheckable(true);
    a->setChecked(m_settings->themeMode() == mode);
    a->setObjectName(QStringLiteral("theme%1Action").arg(static_cast<int>(mode)));
    themes->addAction(a);
    connect(a, &QAction::triggered, this, [this, m = mode] { m_theme->setMode(m); });
  }
  view->addSeparator();
  view->addAction(QStringLiteral("&Reset layout"), this, &MainWindow::resetLayout)
      ->setObjectName(QStringLiteral("resetLayoutAction"));

  buildFiguresMenu();

  auto* help = menuBar()->addMenu(QStringLiteral("&Help"));
  help->addAction(QStringLiteral("&About AttnLab"), this, &MainWindow::showAbout)
      ->setObjectName(QStringLiteral("aboutAction"));

  auto* toolbar = addToolBar(QStringLiteral("Run"));
  toolbar->setObjectName(QStringLiteral("runToolbar"));
  toolbar->addAction(newRun);
  toolbar->addAction(open);
  toolbar->addSeparator();
  toolbar->addAction(m_pauseAction);
  toolbar->addAction(m_resumeAction);
  toolbar->addAction(m_stopAction);
  toolbar->addAction(m_checkpointAction);
}

void MainWindow::wireSession(TrainingSession* session) {
  // Both back-ends are wired the same way; only the one training now (m_session) is heard.
  const auto current = [this, session] { return session == m_session ? m_sessionRun : nullptr; };
  connect(session, &TrainingSession::statusChanged, this, [this, current](RunStatus status) {
    RunSession* run = current();
    if (run) run->setStatus(status);
    // A paused run reports no steps, so the bar would go on saying "training".
    if (run && isActiveHere(status))
      m_statusBar->showProgress(run->name(), m_session->progress(), status);
    updateActions();
  });
  connect(session, &TrainingSession::progressChanged, this, [this, current] {
    if (RunSession* run = current())
      m_statusBar->showProgress(run->name(), m_session->progress(), m_session->status());
  });
  connect(session, &TrainingSession::stepReported, this,
          [this, current](qint64 step, qint64 total) {
            RunSession* run = current();
            if (!run) return;
            run->setLiveStep(step, total);
            m_runs->pollNow(run);  // the rows are in the log within a flush
          });
  // The watcher waits for this before it reads: a resumed log must not be read before the
  // writer has reopened it (and cut it back to the checkpoint).
  connect(session, &TrainingSession::logOpened, this, [this, current] {
    if (RunSession* run = current()) m_runs->writerOpened(run);
  });
  connect(session, &TrainingSession::message, this, [this, current](const RunMessage& m) {
    RunSession* run = current();
    if (!run) return;
    m_console->append(run->name(), run->colour(), m);
    if (m.kind == QStringLiteral("error")) statusBar()->showMessage(m.text, kStatusErrorMs);
  });
  connect(session, &TrainingSession::finished, this,
          [this, session](RunStatus status, const QString& error) {
            if (session == m_session) trainingEnded(status, error);
          });
}

void MainWindow::trainingEnded(RunStatus status, const QString& error) {
  RunSession* run = m_sessionRun;
  if (run) {
    run->markMessagesShownUntilNow();
    m_runs->setTrainingHere(run, false);
    m_runs->pollNow(run);
  }
  m_statusBar->showIdle();
  if (status == RunStatus::Failed) {
    showError(
        QStringLiteral("%1 failed: %2").arg(run ? run->name() : QStringLiteral("The run"), error));
  } else if (run) {
    // In the app a stopped run goes on with Resume, not with a command.
    const QString next = run->status() == RunStatus::Stopped
                             ? QStringLiteral(" (Run > Resume continues it)")
                             : QString();
    statusBar()->showMessage(
        QStringLiteral("%1: %2%3").arg(run->name(), runStatusText(run->status()), next),
        kStatusMessageMs);
  }
  m_session = nullptr;
  m_sessionRun = nullptr;
  updateActions();
  if (m_closeWhenStopped) close();
}

bool MainWindow::isTraining() const {
  return m_session != nullptr && m_session->isRunning();
}

void MainWindow::stopTraining() {
  if (isTraining()) m_session->stop();
}

bool MainWindow::startTraining(const core::RunConfig& config, const QString& requested,
                               int processes) {
  const QString directory = requested;  // a copy: it may name a session closed below
  if (isTraining()) {
    showError(QStringLiteral("%1 is still training; stop it before starting another run (the "
                             "app trains one run at a time so the engine keeps both cores)")
                  .arg(m_session->runDirectory()));
    return false;
  }
  QDir().mkpath(directory);
  // A run already open here is closed and opened again for training: its reader must let go
  // of the log before the engine opens it for writing (HDF5 refuses otherwise), and a
  // resumed log is cut back to the checkpoint, so the views read it again from the start.
  if (RunSession* open = m_runs->find(directory)) m_runs->close(open);
  RunSession* run = m_runs->open(directory, /*expectTraining=*/true);
  if (run == nullptr) return false;
  // One process trains inside the app; more are attnlab-cli's, whose rank 0 writes the log
  // that reaches the views through the run's watcher as for any run.
  TrainingSession* session = m_training;
  if (processes > 1) {
    m_launcher->setProcesses(processes);
    session = m_launcher;
  }
  m_session = session;
  m_sessionRun = run;
  run->setProcesses(std::max(processes, 1));
  run->setStatus(RunStatus::PreparingData);
  QString whyNot;
  if (!session->start(config, run->directory(), &whyNot)) {
    m_session = nullptr;
    m_sessionRun = nullptr;
    run->setProcesses(1);
    run->setStatus(RunStatus::Failed);
    m_runs->setTrainingHere(run, false);
    showError(whyNot);
    return false;
  }
  m_settings->addRecentRun(run->directory());
  statusBar()->clearMessage();  // the run's own progress replaces "Ready: ..."
  m_runsPanel->selectOnly(run);
  m_statusBar->showProgress(run->name(), session->progress(), session->status());
  updateActions();
  return true;
}

bool MainWindow::resumeRun(RunSession* run) {
  if (run == nullptr) return false;
  const QString configPath = QDir(run->directory()).filePath(QStringLiteral("config.toml"));
  try {
    const core::RunConfig config = core::loadRunConfig(configPath.toStdString());
    // The same number of processes keeps the run's global batch (and its data order): the
    // number this window launched it in, else the number its log records.
    const int processes = run->processes() > 1 ? run->processes() : run->recordedProcesses();
    return startTraining(config, run->directory(), processes);
  } catch (const std::exception& e) {
    showError(
        QStringLiteral("Cannot resume %1: %2").arg(run->name(), QString::fromStdString(e.what())));
    return false;
  }
}

RunSession* MainWindow::openRun(const QString& path) {
  RunSession* run = m_runs->open(path);
  if (run != nullptr) m_settings->addRecentRun(run->directory());
  return run;
}

void MainWindow::openRuns(const QStringList& paths) {
  for (const QString& path : paths) openRun(path);
  if (paths.size() > 1) m_runsPanel->list()->selectAll();
}

bool MainWindow::showView(const QString& spec) {
  const QStringList parts = spec.split(QLatin1Char('/'));
  int found = -1;
  for (int i = 0; i < m_tabs->count(); ++i)
    if (m_tabs->tabText(i).compare(parts.front(), Qt::CaseInsensitive) == 0) found = i;
  if (found < 0) return false;
  m_tabs->setCurrentIndex(found);
  if (parts.size() < 2) return true;
  for (QTabWidget* inner : m_tabs->currentWidget()->findChildren<QTabWidget*>())
    for (int i = 0; i < inner->count(); ++i)
      if (inner->tabText(i).compare(parts[1], Qt::CaseInsensitive) == 0) inner->setCurrentIndex(i);
  return true;
}

void MainWindow::newRun() {
  auto* dialog = new NewRunDialog(m_settings, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    startTraining(dialog->config(), dialog->runDirectory(), dialog->processes());
  });
  dialog->open();
}

void MainWindow::closeRun(RunSession* run) {
  // The run this window trains stays open until its engine thread (or its processes) ended.
  if (run == nullptr) return;
  if (run == m_sessionRun && isTraining()) return;
  m_runs->close(run);
}

void MainWindow::openRunDialog() {
  const QString dir = QFileDialog::getExistingDirectory(this, QStringLiteral("Open run folder"),
                                                        m_settings->runsFolder());
  if (!dir.isEmpty()) openRun(dir);
}

void MainWindow::updateWelcome() {
  const bool empty = m_runs->runs().empty();
  if (empty)
    m_welcome->setRuns(WelcomePanel::findDemoRun(m_settings->runsFolder()),
                       m_settings->recentRuns());
  m_centre->setCurrentWidget(empty ? static_cast<QWidget*>(m_welcome) : m_tabs);
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  const QStringList recent = m_settings->recentRuns();
  for (const QString& dir : recent)
    m_recentMenu->addAction(dir, this, [this, dir] { openRun(dir); });
  if (recent.isEmpty()) m_recentMenu->addAction(QStringLiteral("(none yet)"))->setEnabled(false);
  m_recentMenu->addSeparator();
  m_recentMenu->addAction(QStringLiteral("Clear list"), m_settings, &AppSettings::clearRecentRuns);
}

QList<RunView*> MainWindow::runViews() const {
  QList<RunView*> list;
  for (int i = 0; i < m_tabs->count(); ++i)
    if (auto* view = dynamic_cast<RunView*>(m_tabs->widget(i))) list << view;
  return list;
}

void MainWindow::showSelection(const QList<RunSession*>& runs) {
  for (RunView* view : runViews()) view->setRuns(runs);
  updateActions();
}

void MainWindow::updateActions() {
  const bool training = isTraining();
  const TrainingCapabilities can = training ? m_session->capabilities() : TrainingCapabilities{};
  const RunStatus status = training ? m_session->status() : RunStatus::Incomplete;
  const bool paused = training && m_session->isPaused();
  RunSession* current = m_runsPanel ? m_runsPanel->currentRun() : nullptr;
  const bool resumable =
      current != nullptr && current != m_sessionRun &&
      (current->status() == RunStatus::Stopped || current->status() == RunStatus::Incomplete ||
       current->status() == RunStatus::Failed);
  m_pauseAction->setEnabled(can.pause && !paused && status != RunStatus::Stopping);
  m_resumeAction->setEnabled((training && paused) || (!training && resumable));
  m_stopAction->setEnabled(training && status != RunStatus::Stopping);
  m_checkpointAction->setEnabled(can.checkpointNow && status == RunStatus::Training);
  // Worker processes take no requests but a stop (a signal): say why these are off.
  const int processes = m_sessionRun ? m_sessionRun->processes() : 1;
  const QString elsewhere =
      training && !can.pause ? QStringLiteral(
                                   " (not for a run in %1 processes: Stop writes a checkpoint and "
                                   "Resume continues it)")
                                   .arg(processes)
                             : QString();
  m_pauseAction->setToolTip(QStringLiteral("The engine finishes its step and holds") + elsewhere);
  m_checkpointAction->setToolTip(QStringLiteral("Write a checkpoint after this step") + elsewhere);
}

void MainWindow::resetLayout() {
  restoreState(m_defaultState);
  for (QDockWidget* dock : findChildren<QDockWidget*>()) dock->show();
}

void MainWindow::showAbout() {
  auto* box = new QMessageBox(
      QMessageBox::Information, QStringLiteral("About AttnLab"),
      QStringLiteral("<h3>AttnLab %1</h3><p>Pretraining and attention "
                     "analysis workbench.</p><pre>%2</pre>")
          .arg(QApplication::applicationVersion(), environmentSummary().toHtmlEscaped()),
      QMessageBox::Ok, this);
  box->setObjectName(QStringLiteral("aboutBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

QString MainWindow::environmentSummary() const {
  return QString::fromStdString(core::describeTorchBuild());
}

void MainWindow::showError(const QString& text) {
  m_lastError = text;
  m_console->appendNote(text, /*error=*/true);
  statusBar()->showMessage(text, kStatusErrorMs);
  auto* box =
      new QMessageBox(QMessageBox::Warning, QStringLiteral("AttnLab"), text, QMessageBox::Ok, this);
  box->setObjectName(QStringLiteral("errorBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();  // not exec(): the window (and a run) keep going behind it
}

void MainWindow::showTheme(const widgets::Theme& theme) {
  QList<QColor> palette;
  for (const QColor& c : theme.series) palette << c;
  m_runs->setPalette(palette);
  for (RunView* view : runViews()) view->setTheme(theme);
  // The Compare tab's figures too (figure tabs are views themselves).
  for (FigureView* view : m_compare->findChildren<FigureView*>()) view->setTheme(theme);
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::ThemeChange && m_theme) m_theme->systemThemeChanged();
  QMainWindow::changeEvent(event);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (isTraining()) {
    event->ignore();
    if (m_closeWhenStopped) return;  // already stopping
    const QString name = m_sessionRun ? m_sessionRun->name() : QString();
    const int processes = m_sessionRun ? m_sessionRun->processes() : 1;
    const QString question =
        processes <= 1 ? QStringLiteral(
                             "%1 is training. Stop it (the engine finishes its step, writes a "
                             "checkpoint and closes the log) and close the window?")
                             .arg(name)
                       : QStringLiteral(
                             "%1 is training in %2 processes. Stop them (they finish their step, "
                             "rank 0 writes a checkpoint and closes the log) and close the "
                             "window?")
                             .arg(name)
                             .arg(processes);
    auto* box = new QMessageBox(QMessageBox::Question, QStringLiteral("A run is training"),
                                question, QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("closeWhileTrainingBox"));
    QPushButton* stop = box->addButton(QStringLiteral("Stop and close"), QMessageBox::AcceptRole);
    stop->setObjectName(QStringLiteral("stopAndCloseButton"));
    box->addButton(QStringLiteral("Keep the window"), QMessageBox::RejectRole)
        ->setObjectName(QStringLiteral("keepWindowButton"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this, [this, stop](QAbstractButton* clicked) {
      if (clicked != stop) return;
      m_closeWhenStopped = true;
      stopTraining();
    });
    box->open();
    return;
  }
  m_settings->saveWindow(saveGeometry(), saveState());
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

QString MainWindow::exportCurrentView(const QString& path) {
  return exportCurrentView(path, widgets::ExportOptions{});
}

QString MainWindow::exportCurrentView(const QString& path, const widgets::ExportOptions& options) {
  auto* view = dynamic_cast<RunView*>(m_tabs->currentWidget());
  if (view == nullptr) return QStringLiteral("this view has nothing to export yet");
  return view->exportCurrentFigure(path, options);
}

void MainWindow::exportSucceeded(const QString& path) {
  statusBar()->showMessage(QStringLiteral("Exported %1").arg(path), kStatusMessageMs);
}

void MainWindow::exportFailed(const QString& error) {
  showError(QStringLiteral("Export failed: %1").arg(error));
}

void MainWindow::exportFigureDialog() {
  QString name = m_tabs->tabText(m_tabs->currentIndex()).toLower();
  name.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
  widgets::ExportOptions defaults;
  if (auto* figure = qobject_cast<FigureView*>(m_tabs->currentWidget()))
    defaults = figure->defaultOptions();
  auto* dialog = new ExportFigureDialog(
      QDir(m_settings->runsFolder()).filePath(name + QStringLiteral(".png")), defaults, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    const QString error = exportCurrentView(dialog->path(), dialog->options());
    if (error.isEmpty())
      exportSucceeded(dialog->path());
    else
      exportFailed(error);
  });
  dialog->open();
}

void MainWindow::buildFiguresMenu() {
  auto* menu = menuBar()->addMenu(QStringLiteral("F&igures"));
  menu->setObjectName(QStringLiteral("figuresMenu"));
  menu->setToolTipsVisible(true);
  for (const figures::FigureSpec& spec : figures::figureCatalog()) {
    // "RealFormer (He et al. 2021) Fig. 4: Attention entropy per head": what it reproduces
    // first, since that is what a researcher looks for.
    QString text = QString::fromStdString(spec.reproduces);
    text.replace(QLatin1Char('&'), QStringLiteral("&&"));
    QAction* action = menu->addAction(text + QStringLiteral(" — ") +
                                      QString::fromStdString(spec.title).replace('&', "&&"));
    action->setObjectName(QStringLiteral("figure:%1").arg(QString::fromStdString(spec.name)));
    action->setToolTip(QStringLiteral("%1 (%2). Reads: %3")
                           .arg(QString::fromStdString(spec.units),
                                QString::fromStdString(figures::runCountText(spec)),
                                QString::fromStdString(spec.inputs)));
    const QString name = QString::fromStdString(spec.name);
    connect(action, &QAction::triggered, this, [this, name] { openFigure(name); });
  }
}

FigureView* MainWindow::openFigure(const QString& figure) {
  QStringList dirs;
  for (RunSession* run : m_runsPanel->selectedRuns()) dirs << run->directory();
  if (dirs.isEmpty()) {
    showError(QStringLiteral("Select the runs to draw %1 from in the Runs list first").arg(figure));
    return nullptr;
  }
  auto* view = new FigureView(m_tabs);
  view->setTheme(m_theme->theme());
  reportExportsOf(view);
  const QString error = view->build(figure.toStdString(), dirs);
  const int index = m_tabs->addTab(view, figure);
  m_tabs->setTabToolTip(index, view->provenanceText());
  m_tabs->setCurrentIndex(index);
  if (!error.isEmpty()) m_console->appendNote(QStringLiteral("%1: %2").arg(figure, error), true);
  return view;
}

QString MainWindow::exportReport(const QString& outDir) {
  RunSession* run = m_runsPanel->currentRun();
  if (run == nullptr) return QStringLiteral("open a run first");
  QString whyNot;
  if (!m_reportExport->start(run->directory(), outDir, std::nullopt, &whyNot)) return whyNot;
  return {};
}

void MainWindow::exportReportDialog() {
  RunSession* run = m_runsPanel->currentRun();
  if (run == nullptr) {
    showError(QStringLiteral("Open a run first: the report is the current run's"));
    return;
  }
  const QString dir = QFileDialog::getExistingDirectory(
      this, QStringLiteral("Export the report of %1 into (a new or empty folder)").arg(run->name()),
      run->directory());
  if (dir.isEmpty()) return;
  const QString error = exportReport(dir);
  if (!error.isEmpty()) showError(QStringLiteral("Report export: %1").arg(error));
}

}  // namespace attnlab::app
