#include "app/gui/main_window.h"

#include "app/gui/analysis_controller.h"
#include "app/gui/app_settings.h"
#include "app/gui/close_while_training.h"
#include "app/gui/new_run/new_run_dialog.h"
#include "app/gui/notices.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/analysis_panel.h"
#include "app/gui/panels/compare_panel.h"
#include "app/gui/panels/console_dock.h"
#include "app/gui/panels/figure_view.h"
#include "app/gui/panels/inspector_panel.h"
#include "app/gui/panels/probe_panel.h"
#include "app/gui/panels/query_key_map_window.h"
#include "app/gui/panels/run_status_bar.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/panels/welcome_panel.h"
#include "app/gui/plot_context_menu.h"
#include "app/gui/theme_controller.h"
#include "app/gui/training_coordinator.h"
#include "app/gui/view_tabs.h"
#include "app/gui/window_exports.h"
#include "widgets/plots/theme.h"

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
  m_parts.runs = new OpenedRuns(this);
  m_parts.training = new TrainingCoordinator(m_parts.runs, m_parts.settings, this);
  m_parts.analysis = new AnalysisController(this);
  buildDocks();
  m_parts.notices = new Notices(this, m_parts.console);
  buildCentre();
  m_parts.exports = new WindowExports(
      {m_parts.views, m_parts.runsPanel, m_parts.settings, m_parts.notices, this}, this);
  m_runActions = buildWindowMenus(*this);
  m_parts.statusBar = new RunStatusBar(this);
  statusBar()->addPermanentWidget(m_parts.statusBar);
  statusBar()->showMessage(QStringLiteral("Ready: File > New run (Ctrl+N) or Open run (Ctrl+O)"));

  wireRuns();
  wireTraining();
  wireAnalysis();
  connect(m_parts.theme, &ThemeController::themeChanged, this, [this](const widgets::Theme& t) {
    m_parts.runs->setPalette(QList<QColor>(t.series.begin(), t.series.end()));
    m_parts.views->setTheme(t);
  });
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
  m_parts.views->analysisPanel()->setAnalysisController(m_parts.analysis);
  m_parts.views->probePanel()->setAnalysisController(m_parts.analysis);
  m_parts.views->comparePanel()->setAnalysisController(m_parts.analysis);
  m_parts.notices->reportExportsOf(m_parts.views->analysisPanel());
  m_parts.notices->reportExportsOf(m_parts.views->probePanel());
  m_parts.notices->reportExportsOf(m_parts.views->comparePanel());
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
    // The run trained here reports through the coordinator: the log's copy of the same
    // events would print twice, also when it arrives after the training ended
    // (messagesShownUntil).
    connect(run, &RunSession::messagesAppended, this, [this, run](int first) {
      if (run == m_parts.training->run()) return;
      const auto& lines = run->messages();
      for (auto i = static_cast<std::size_t>(first); i < lines.size(); ++i)
        if (lines[i].wallTime > run->messagesShownUntil())
          m_parts.console->append(run->name(), run->colour(), lines[i]);
    });
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
  connect(panel, &RunsPanel::stopRequested, this, [this](RunSession* run) {
    if (run == m_parts.training->run()) m_parts.training->stop();
  });
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
  connect(training, &TrainingCoordinator::message, this,
          [this](RunSession* run, const RunMessage& m) {
            m_parts.console->append(run->name(), run->colour(), m);
            if (m.error) m_parts.notices->result(m.text, Notices::kErrorMs);
          });
  connect(training, &TrainingCoordinator::ended, this,
          [this, bar](RunSession* run, RunStatus status, const QString& error) {
            bar->showIdle();
            const QString name = run ? run->name() : QStringLiteral("The run");
            if (status == RunStatus::Failed) {
              m_parts.notices->error(QStringLiteral("%1 failed: %2").arg(name, error));
            } else if (run) {
              // In the app a stopped run goes on with Resume, not with a command.
              const bool stopped = run->status() == RunStatus::Stopped;
              m_parts.notices->result(
                  QStringLiteral("%1: %2%3")
                      .arg(name, runStatusText(run->status()),
                           stopped ? QStringLiteral(" (Run > Resume continues it)") : QString()));
            }
            if (m_closeWhenStopped) close();
          });
  connect(training, &TrainingCoordinator::stateChanged, this, &MainWindow::updateActions);
}

void MainWindow::wireAnalysis() {
  connect(m_parts.views->analysisPanel(), &AnalysisPanel::analysisRequested, this,
          [this](RunSession* run) {
            // While a run trains here the statistics take one thread, so the engine keeps its
            // share.
            QString whyNot;
            const int threads = m_parts.training->isTraining() ? 1 : 0;
            if (!m_parts.analysis->start(run->directory(), std::nullopt, threads, &whyNot,
                                         m_parts.views->analysisPanel()->runOptions()))
              m_parts.notices->error(whyNot);
          });
  connect(m_parts.views->probePanel(), &ProbePanel::probeRequested, this,
          [this](RunSession* run, const ProbeRequest& dataset) {
            QString whyNot;
            if (!m_parts.analysis->startProbe(run->directory(), dataset, &whyNot))
              m_parts.notices->error(whyNot);
          });
  // Each query-key map gets a window of its own (its own thread), which follows the theme.
  connect(m_parts.views->inspectorPanel(), &InspectorPanel::queryKeyMapRequested, this,
          [this](const QString& run, qint64 step, int layer, int head) {
            auto* window = new QueryKeyMapWindow(this);
            window->setDeleteWhenClosed(true);
            window->setTheme(m_parts.theme->theme());
            connect(m_parts.theme, &ThemeController::themeChanged, window,
                    &QueryKeyMapWindow::setTheme);
            window->show();
            QueryKeyMapRequest request;
            request.runDirectory = run;
            request.step = step;
            request.layer = layer;
            request.head = head;
            window->start(request);
          });
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
  const QString dir = QFileDialog::getExistingDirectory(
      this, QStringLiteral("Open a Hugging Face model folder (config.json, model.safetensors)"),
      m_parts.settings->runsFolder());
  if (!dir.isEmpty()) openRun(dir);
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

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::ThemeChange && m_parts.theme) m_parts.theme->systemThemeChanged();
  QMainWindow::changeEvent(event);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_parts.training->isTraining()) {
    event->ignore();
    if (m_closeWhenStopped) return;  // already stopping
    askToStopAndClose(this, m_parts.training->run(), [this] {
      m_closeWhenStopped = true;
      m_parts.training->stop();
    });
    return;
  }
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
  auto* view = new FigureView(m_parts.views);
  view->setTheme(m_parts.theme->theme());
  m_parts.notices->reportExportsOf(view);
  const QString error = view->build(figure.toStdString(), dirs);
  m_parts.views->addFigure(view, figure);
  if (!error.isEmpty())
    m_parts.console->appendNote(QStringLiteral("%1: %2").arg(figure, error), true);
  return view;
}

}  // namespace attnlab::app
