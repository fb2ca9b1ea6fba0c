#include "app/gui/window_menus.h"

#include "app/gui/app_settings.h"
#include "app/gui/main_window.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/report_export_controller.h"
#include "app/gui/theme_controller.h"
#include "app/gui/training_coordinator.h"
#include "app/gui/window_exports.h"
#include "core/runtime/compute_environment.h"
#include "figures/figure_catalog.h"

#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QToolBar>

namespace attnlab::app {

namespace {

QAction* named(QAction* action, const char* objectName) {
  action->setObjectName(QString::fromLatin1(objectName));
  return action;
}

void fillRecentMenu(QMenu* menu, MainWindow& window) {
  AppSettings* settings = window.parts().settings;
  menu->clear();
  const QStringList recent = settings->recentRuns();
  for (const QString& dir : recent)
    menu->addAction(dir, &window, [&window, dir] { window.openRun(dir); });
  if (recent.isEmpty()) menu->addAction(QStringLiteral("(none yet)"))->setEnabled(false);
  menu->addSeparator();
  menu->addAction(QStringLiteral("Clear list"), settings, &AppSettings::clearRecentRuns);
}

void addReportActions(QMenu* file, MainWindow& window) {
  WindowExports* exports = window.parts().exports;
  ReportExportController* controller = exports->reportExport();
  QAction* report = named(file->addAction(QStringLiteral("Export &report…"),
                                          QKeySequence(QStringLiteral("Ctrl+Shift+E")), exports,
                                          &WindowExports::reportDialog),
                          "exportReportAction");
  report->setToolTip(
      QStringLiteral("Every figure of the current run in PNG, SVG and PDF, its reports, config "
                     "and an index, as attnlab-cli export --report writes them"));
  QAction* cancel = named(file->addAction(QStringLiteral("Cancel report export"), controller,
                                          &ReportExportController::cancel),
                          "cancelReportAction");
  cancel->setEnabled(false);
  QObject::connect(controller, &ReportExportController::started, cancel,
                   [cancel] { cancel->setEnabled(true); });
  QObject::connect(controller, &ReportExportController::finished, cancel,
                   [cancel] { cancel->setEnabled(false); });
  named(file->addAction(QStringLiteral("Export &model…"), exports, &WindowExports::modelDialog),
        "exportModelAction")
      ->setToolTip(QStringLiteral(
          "The current run's latest checkpoint as a Hugging Face folder (config.json, "
          "model.safetensors, tokenizer.json) that transformers loads, as attnlab-cli "
          "export-model writes it"));
}

QList<QAction*> buildFileMenu(MainWindow& window) {
  auto* file = window.menuBar()->addMenu(QStringLiteral("&File"));
  QAction* newRun = named(
      file->addAction(QStringLiteral("&New run…"), QKeySequence::New, &window, &MainWindow::newRun),
      "newRunAction");
  QAction* open = named(file->addAction(QStringLiteral("&Open run…"), QKeySequence::Open, &window,
                                        &MainWindow::openRunDialog),
                        "openRunAction");
  named(
      file->addAction(QStringLiteral("Open &model…"), QKeySequence(QStringLiteral("Ctrl+Shift+O")),
                      &window, &MainWindow::openModelDialog),
      "openModelAction")
      ->setToolTip(QStringLiteral("A Hugging Face BERT or RoBERTa folder (config.json, "
                                  "model.safetensors, its tokenizer), opened as a run"));
  named(file->addAction(QStringLiteral("&Export figure…"), QKeySequence(QStringLiteral("Ctrl+E")),
                        window.parts().exports, &WindowExports::figureDialog),
        "exportFigureAction")
      ->setToolTip(QStringLiteral("The current view as PNG, SVG or PDF"));
  addReportActions(file, window);
  QMenu* recent = file->addMenu(QStringLiteral("Open &recent"));
  recent->setObjectName(QStringLiteral("recentMenu"));
  QObject::connect(recent, &QMenu::aboutToShow, recent,
                   [recent, &window] { fillRecentMenu(recent, window); });
  fillRecentMenu(recent, window);
  QAction* close =
      named(file->addAction(QStringLiteral("&Close run"), &window,
                            [&window] { window.closeRun(window.parts().runsPanel->currentRun()); }),
            "closeRunAction");
  // QKeySequence::Close is Ctrl+F4 on some platforms; Ctrl+W is what people press.
  close->setShortcuts({QKeySequence(QStringLiteral("Ctrl+W")), QKeySequence(QKeySequence::Close)});
  file->addSeparator();
  file->addAction(QStringLiteral("&Quit"), QKeySequence::Quit, &window, &QWidget::close);
  return {newRun, open};
}

RunActions buildRunMenu(MainWindow& window) {
  TrainingCoordinator* training = window.parts().training;
  RunsPanel* runsPanel = window.parts().runsPanel;
  auto* menu = window.menuBar()->addMenu(QStringLiteral("&Run"));
  RunActions run;
  run.pause =
      named(menu->addAction(QStringLiteral("&Pause"), QKeySequence(QStringLiteral("Ctrl+Shift+P")),
                            training, &TrainingCoordinator::pause),
            "pauseAction");
  run.resume =
      named(menu->addAction(QStringLiteral("&Resume"), QKeySequence(QStringLiteral("Ctrl+Shift+R")),
                            training,
                            [training, runsPanel] { training->resumeOr(runsPanel->currentRun()); }),
            "resumeAction");
  run.stop = named(menu->addAction(QStringLiteral("&Stop"), QKeySequence(QStringLiteral("Ctrl+.")),
                                   training, &TrainingCoordinator::stop),
                   "stopAction");
  run.stop->setToolTip(QStringLiteral("Finish the step, write a checkpoint, close the log"));
  run.checkpoint = named(menu->addAction(QStringLiteral("&Checkpoint now"),
                                         QKeySequence(QStringLiteral("Ctrl+Shift+S")), training,
                                         &TrainingCoordinator::checkpointNow),
                         "checkpointAction");
  return run;
}

void addThemeMenu(QMenu* view, MainWindow& window) {
  ThemeController* theme = window.parts().theme;
  auto* group = new QActionGroup(view);
  const std::pair<QString, ThemeMode> modes[] = {
      {QStringLiteral("Follow the &system"), ThemeMode::System},
      {QStringLiteral("&Light"), ThemeMode::Light},
      {QStringLiteral("&Dark"), ThemeMode::Dark}};
  auto* menu = view->addMenu(QStringLiteral("&Theme"));
  for (const auto& [label, mode] : modes) {
    QAction* a = menu->addAction(label);
    a->setCheckable(true);
    a->setChecked(window.parts().settings->themeMode() == mode);
    a->setObjectName(QStringLiteral("theme%1Action").arg(static_cast<int>(mode)));
    group->addAction(a);
    QObject::connect(a, &QAction::triggered, theme, [theme, m = mode] { theme->setMode(m); });
  }
}

void buildViewMenu(MainWindow& window) {
  auto* view = window.menuBar()->addMenu(QStringLiteral("&View"));
  for (QDockWidget* dock : window.findChildren<QDockWidget*>())
    view->addAction(dock->toggleViewAction());
  view->addSeparator();
  addThemeMenu(view, window);
  view->addSeparator();
  named(view->addAction(QStringLiteral("&Reset layout"), &window, &MainWindow::resetLayout),
        "resetLayoutAction");
}

void buildFiguresMenu(MainWindow& window) {
  auto* menu = window.menuBar()->addMenu(QStringLiteral("F&igures"));
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
    QObject::connect(action, &QAction::triggered, &window,
                     [&window, name] { window.openFigure(name); });
  }
}

void showAbout(QWidget* parent) {
  const QString environment = QString::fromStdString(core::describeTorchBuild());
  auto* box =
      new QMessageBox(QMessageBox::Information, QStringLiteral("About AttnLab"),
                      QStringLiteral("<h3>AttnLab %1</h3><p>Pretraining and attention "
                                     "analysis workbench.</p><pre>%2</pre>")
                          .arg(QApplication::applicationVersion(), environment.toHtmlEscaped()),
                      QMessageBox::Ok, parent);
  box->setObjectName(QStringLiteral("aboutBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void buildToolbar(MainWindow& window, const QList<QAction*>& fileActions, const RunActions& run) {
  auto* toolbar = window.addToolBar(QStringLiteral("Run"));
  toolbar->setObjectName(QStringLiteral("runToolbar"));
  toolbar->addActions(fileActions);
  toolbar->addSeparator();
  toolbar->addActions({run.pause, run.resume, run.stop, run.checkpoint});
}

}  // namespace

RunActions buildWindowMenus(MainWindow& window) {
  const QList<QAction*> fileActions = buildFileMenu(window);
  const RunActions run = buildRunMenu(window);
  buildViewMenu(window);
  buildFiguresMenu(window);
  auto* help = window.menuBar()->addMenu(QStringLiteral("&Help"));
  named(
      help->addAction(QStringLiteral("&About AttnLab"), &window, [&window] { showAbout(&window); }),
      "aboutAction");
  buildToolbar(window, fileActions, run);
  return run;
}

}  // namespace attnlab::app
