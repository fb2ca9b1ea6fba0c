// The real main window driven as a person drives it (QTest keys and clicks, offscreen):
// File > New run with the tiny preset, a few fields typed, Start; curves and snapshots
// appear; Pause holds, Resume goes on, Stop leaves a checkpoint; the run closes and reopens
// with the same points; a run written by attnlab-cli is followed; bad input gets a message
// and the window keeps working; closing while training asks first.

#include "app/gui/app_settings.h"
#include "app/gui/main_window.h"
#include "app/gui/new_run/new_run_dialog.h"
#include "app/gui/notices.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/analysis_panel.h"
#include "app/gui/panels/attention_panel.h"
#include "app/gui/panels/compare_panel.h"
#include "app/gui/panels/console_dock.h"
#include "app/gui/panels/curves_panel.h"
#include "app/gui/panels/run_status_bar.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/panels/welcome_panel.h"
#include "app/gui/training_controller.h"
#include "app/gui/training_coordinator.h"
#include "app/gui/view_tabs.h"
#include "core/config/config_loader.h"
#include "core/config/modernbert_layout.h"
#include "core/runlog/run_log_reader.h"
#include "core/runtime/compute_environment.h"
#include "tests/support/cli_process.h"
#include "tests/support/form_typing.h"
#include "tests/support/heatmap_hover.h"
#include "tests/support/tiny_run_setup.h"
#include "widgets/plots/attention_heatmap.h"
#include "widgets/plots/curve_plot.h"
#include "widgets/plots/plot_widget.h"
#include "widgets/plots/theme.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QImage>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QMimeData>
#include <QPalette>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include <fstream>

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

using tests::typeField;

std::size_t curvePoints(app::MainWindow& window, app::RunSession* run, const QString& scalar) {
  widgets::CurvePlot* plot = window.parts().views->curvesPanel()->plotFor(scalar);
  return plot ? plot->pointCount(window.parts().views->curvesPanel()->seriesName(run)) : 0;
}

// Another process opens the log as a notebook does by default: h5py, plain (not SWMR).
// HDF5 refuses that while any handle in the app still has the file open for write.
bool plainH5pyOpens(const QString& log) {
  QProcess py;
  py.start(
      QStringLiteral(ATTNLAB_PYTHON),
      {"-c", "import h5py, sys; f = h5py.File(sys.argv[1], 'r'); f['scalars']; f.close()", log});
  return py.waitForFinished(60000) && py.exitStatus() == QProcess::NormalExit && py.exitCode() == 0;
}

void closeMessageBoxes(QWidget& window) {
  for (QMessageBox* box : window.findChildren<QMessageBox*>())
    if (box->isVisible()) box->close();
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  core::RunConfig m_config;

  fs::path path(const char* name) const { return fs::path(m_dir.path().toStdString()) / name; }
  QString qpath(const QString& name) const { return m_dir.filePath(name); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    // Settings of this test only: runs folder, recent runs, layout.
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, qpath("settings"));
    QStandardPaths::setTestModeEnabled(true);
    QSettings().setValue(QStringLiteral("paths/runsFolder"), qpath("runs"));
    m_config = tests::prepareTinyRun(m_dir.path().toStdString());
  }

  void showsTheWorkbench() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.windowTitle(), QStringLiteral("AttnLab"));
    QVERIFY2(QString::fromStdString(core::describeTorchBuild()).contains("LibTorch"),
             qPrintable(QString::fromStdString(core::describeTorchBuild())));
    QVERIFY(window.findChild<QDockWidget*>("runsDock")->isVisible());
    QVERIFY(window.findChild<QDockWidget*>("consoleDock")->isVisible());
    // No run is open: the window offers ways to begin instead of empty tabs.
    QVERIFY(window.parts().welcome->isVisible());
    QVERIFY(!window.parts().views->curvesPanel()->isVisible());
    // Help > About shows the LibTorch / BLAS / device line.
    window.findChild<QAction*>("aboutAction")->trigger();
    QMessageBox* about = nullptr;
    QTRY_VERIFY((about = window.findChild<QMessageBox*>("aboutBox")) != nullptr);
    QVERIFY2(about->text().contains("LibTorch"), qPrintable(about->text()));
    about->close();
    // View > Reset layout brings a closed dock back.
    window.findChild<QDockWidget*>("consoleDock")->close();
    QVERIFY(!window.findChild<QDockWidget*>("consoleDock")->isVisible());
    window.findChild<QAction*>("resetLayoutAction")->trigger();
    QTRY_VERIFY(window.findChild<QDockWidget*>("consoleDock")->isVisible());
  }

  // View > Theme: Dark darkens the application palette and every tab's plots and is
  // remembered; Light brings both back (the ThemeController behind the menu).
  void themeMenuSwitchesPaletteAndPlots() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const auto plotBackground = [&] {
      return window.parts().views->attentionPanel()->heatmap()->theme().background;
    };
    window.findChild<QAction*>(QStringLiteral("theme%1Action").arg(int(app::ThemeMode::Dark)))
        ->trigger();
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 128);
    QCOMPARE(plotBackground(), widgets::Theme::dark().background);
    QCOMPARE(app::AppSettings().themeMode(), app::ThemeMode::Dark);
    window.findChild<QAction*>(QStringLiteral("theme%1Action").arg(int(app::ThemeMode::Light)))
        ->trigger();
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() >= 128);
    QCOMPARE(plotBackground(), widgets::Theme::light().background);
    QCOMPARE(app::AppSettings().themeMode(), app::ThemeMode::Light);
    app::AppSettings().setThemeMode(app::ThemeMode::System);
  }

  // --view's seam: a tab by its title, then a tab inside it; an unknown title says so.
  void showViewPicksATabAndOneInsideIt() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.showView(QStringLiteral("analysis/head similarity")));
    QCOMPARE(window.parts().views->currentWidget(),
             static_cast<QWidget*>(window.parts().views->analysisPanel()));
    bool innerShown = false;
    for (QTabWidget* inner : window.parts().views->analysisPanel()->findChildren<QTabWidget*>())
      innerShown = innerShown || inner->tabText(inner->currentIndex()) == "Head similarity";
    QVERIFY(innerShown);
    QVERIFY(window.showView(QStringLiteral("Compare")));
    QCOMPARE(window.parts().views->currentWidget(),
             static_cast<QWidget*>(window.parts().views->comparePanel()));
    QVERIFY(!window.showView(QStringLiteral("No such tab")));
    QCOMPARE(window.parts().views->currentWidget(),
             static_cast<QWidget*>(window.parts().views->comparePanel()));
  }

  void newRunTrainsPausesStopsAndReopens() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // File > New run (Ctrl+N): the tiny preset, our corpus and tokenizer, 400 steps.
    app::NewRunDialog* dialog = tests::openNewRunDialog(window, "tiny");
    QVERIFY(dialog != nullptr);
    QVERIFY(typeField(dialog, "corpus.source", "text"));
    QVERIFY(typeField(dialog, "corpus.paths", qpath("corpus.txt")));
    QVERIFY(typeField(dialog, "tokenizer.model", qpath("tok.model")));
    QVERIFY(typeField(dialog, "schedule.steps", "400"));
    QVERIFY(typeField(dialog, "train.log_every", "5"));
    QVERIFY(typeField(dialog, "train.threads", "1"));
    // Small steps: the preset's 32 x 64 tokens made the two legs take 126 s alone and over
    // the 120 s wait in CI beside another test; 8 x 32 keeps 400 steps and every phase.
    QVERIFY(typeField(dialog, "train.batch_size", "8"));
    QVERIFY(typeField(dialog, "data.sequence_length", "32"));
    QTRY_VERIFY2(dialog->startButton()->isEnabled(), qPrintable(dialog->summaryText()));
    const QString runDir = dialog->runDirectory();
    QCOMPARE(runDir, QDir::cleanPath(qpath("runs/tiny")));
    QTest::mouseClick(dialog->startButton(), Qt::LeftButton);

    QTRY_VERIFY(window.parts().training->inProcess()->isRunning());
    app::RunSession* run = window.parts().runs->find(runDir);
    QVERIFY(run != nullptr);
    QCOMPARE(window.parts().runsPanel->selectedRuns(), QList<app::RunSession*>{run});
    // Live: the loss curve holds points, a snapshot is drawn, the status bar moves.
    QTRY_VERIFY_WITH_TIMEOUT(curvePoints(window, run, "train/loss") > 0, 120000);
    window.parts().views->setCurrentWidget(window.parts().views->attentionPanel());
    QTRY_VERIFY_WITH_TIMEOUT(window.parts().views->attentionPanel()->shownStep() >= 0, 30000);
    QVERIFY(window.parts().views->attentionPanel()->heatmap()->queries() > 1);
    window.parts().views->setCurrentWidget(window.parts().views->curvesPanel());
    QVERIFY(window.parts().runsPanel->rowText(run).contains("training"));

    // Pause (Ctrl+Shift+P): the engine finishes its step and holds. The dialog had the
    // focus; shortcuts go to the active window.
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(run->status(), app::RunStatus::Paused);
    QTRY_VERIFY_WITH_TIMEOUT(window.parts().console->text().contains("paused after step"), 30000);
    // The status bar says so too (no step arrives while paused to refresh it).
    QTRY_VERIFY2(window.parts().statusBar->text().contains("tiny: paused"),
                 qPrintable(window.parts().statusBar->text()));
    const std::int64_t heldAt = run->step();
    QSignalSpy stepped(run, &app::RunSession::stepChanged);
    QVERIFY(!stepped.wait(800));
    QCOMPARE(run->step(), heldAt);
    // Resume (Ctrl+Shift+R): steps advance again.
    QTest::keyClick(&window, Qt::Key_R, Qt::ControlModifier | Qt::ShiftModifier);
    QTRY_VERIFY_WITH_TIMEOUT(run->step() > heldAt, 30000);
    // Stop (Ctrl+.): finish the step, checkpoint, close the log.
    QTest::keyClick(&window, Qt::Key_Period, Qt::ControlModifier);
    QTRY_COMPARE_WITH_TIMEOUT(run->status(), app::RunStatus::Stopped, 60000);
    QVERIFY(!window.parts().training->inProcess()->isRunning());
    QVERIFY(!QDir(runDir + "/checkpoints").entryList({"*.h5"}, QDir::Files).isEmpty());
    // Still shown in the app, the stopped run's log opens elsewhere without SWMR.
    QTRY_VERIFY_WITH_TIMEOUT(plainH5pyOpens(runDir + "/run.h5"), 20000);
    const std::int64_t stoppedAt = run->step();
    QVERIFY(stoppedAt < 400);
    // The stop is reported once, in the app's words: the engine's line, not also the log's
    // copy of it (which the watcher has read by now), and no command to run.
    QTRY_VERIFY(std::any_of(run->messages().begin(), run->messages().end(),
                            [](const app::RunMessage& m) { return m.kind == "stopped"; }));
    const QString console = window.parts().console->text();
    QCOMPARE(console.count(QStringLiteral("stopped after step")), 1);
    QVERIFY2(!console.contains(QStringLiteral("stopped on request")), qPrintable(console));
    QVERIFY2(!console.contains(QStringLiteral("same command")), qPrintable(console));

    // Close the run and reopen it: the same points.
    // Closed at once: a handle held in this process would keep the engine from reopening the
    // log for writing on resume (HDF5 allows one open mode per file and process).
    const std::size_t rows =
        core::RunLogReader((runDir + "/run.h5").toStdString()).scalar("train/loss").steps.size();
    window.parts().runsPanel->selectOnly(run);
    QTest::keyClick(&window, Qt::Key_W, Qt::ControlModifier);
    QTRY_COMPARE(window.parts().runs->runs().size(), 0);
    app::RunSession* again = window.openRun(runDir);
    QVERIFY(again != nullptr);
    QTRY_COMPARE_WITH_TIMEOUT(again->status(), app::RunStatus::Stopped, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(curvePoints(window, again, "train/loss"), rows, 10000);

    // Resume from the runs list: it continues from the checkpoint to the end.
    QTest::mouseClick(window.parts().runsPanel->findChild<QPushButton*>("resumeRunButton"),
                      Qt::LeftButton);
    QTRY_VERIFY(window.parts().training->inProcess()->isRunning());
    // Training reopens the run (its log is read again from the start once the engine has it).
    app::RunSession* resumed = window.parts().runs->find(runDir);
    QVERIFY(resumed != nullptr);
    QTRY_COMPARE_WITH_TIMEOUT(resumed->status(), app::RunStatus::Finished, 120000);
    QCOMPARE(resumed->step(), std::int64_t{400});
    QTRY_COMPARE_WITH_TIMEOUT(curvePoints(window, resumed, "train/loss"), std::size_t{400 / 5},
                              10000);
    QTRY_VERIFY_WITH_TIMEOUT(plainH5pyOpens(runDir + "/run.h5"), 20000);
  }

  void followsARunTheCliWrites() {
    core::RunConfig c = m_config;
    c.schedule.steps = 400;
    c.log.flushSeconds = 0.1;
    std::ofstream(path("follow.toml")) << core::toToml(c);
    const QString dir = qpath("followed");
    QProcess cli;
    cli.start(tests::kCli,
              {"train", "--config", qpath("follow.toml"), "--run-dir", dir, "--plain"});
    QVERIFY(cli.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir + "/run.h5"), 60000);

    app::MainWindow window;
    window.show();
    app::RunSession* run = window.openRun(dir);
    QVERIFY(run != nullptr);
    QTRY_COMPARE_WITH_TIMEOUT(run->status(), app::RunStatus::LiveElsewhere, 10000);
    QVERIFY(window.parts().runsPanel->rowText(run).contains("live in another process"));
    QTRY_VERIFY_WITH_TIMEOUT(curvePoints(window, run, "train/loss") > 0, 30000);
    const std::size_t early = curvePoints(window, run, "train/loss");
    QTRY_VERIFY_WITH_TIMEOUT(curvePoints(window, run, "train/loss") > early, 60000);
    QVERIFY(cli.waitForFinished(300000));
    QCOMPARE(cli.exitCode(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(run->status(), app::RunStatus::Finished, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(curvePoints(window, run, "train/loss"), std::size_t{400}, 10000);

    // File > Export figure (Ctrl+E) writes the current view; here without its file dialog.
    auto* exportAction = window.findChild<QAction*>("exportFigureAction");
    QVERIFY(exportAction != nullptr);
    QCOMPARE(exportAction->shortcut(), QKeySequence(QStringLiteral("Ctrl+E")));
    window.parts().views->setCurrentWidget(window.parts().views->curvesPanel());
    QCOMPARE(window.parts().views->exportCurrentView(qpath("curves.svg")), QString());
    QFile svg(qpath("curves.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("train/loss"));
    QCOMPARE(window.parts().views->exportCurrentView(qpath("curves.png")), QString());
    QVERIFY(!QImage(qpath("curves.png")).isNull());
    QVERIFY(window.parts()
                .views->exportCurrentView(qpath("curves.txt"))
                .contains("choose a .png, .svg or .pdf"));
    window.parts().views->setCurrentWidget(window.parts().views->analysisPanel());
    QVERIFY(window.parts().views->exportCurrentView(qpath("analysis.png")).contains("no report"));
  }

  // A run of ModernBERT's layout (layer 1 of 2 windowed, 8 tokens of its 24) in the Attention
  // tab: picking layer 1's head in the grid frames the band on the snapshot's heatmap, and
  // layer 0, global, has none.
  void attentionTabFramesAWindowedLayer() {
    core::RunConfig c = m_config;
    core::useModernBertLayout(c.model);
    c.model.attentionWindow = 8;
    c.model.globalEvery = 2;
    std::ofstream(path("windowed.toml")) << core::toToml(c);
    const QString dir = qpath("windowed");
    const auto trained =
        tests::runCli({"train", "--config", qpath("windowed.toml"), "--run-dir", dir, "--plain"});
    QVERIFY2(trained.exitCode == 0, qPrintable(trained.out + trained.err));
    app::MainWindow window;
    window.resize(1280, 820);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openRun(dir) != nullptr);
    app::AttentionPanel* panel = window.parts().views->attentionPanel();
    window.parts().views->setCurrentWidget(panel);
    QTRY_VERIFY_WITH_TIMEOUT(panel->shownStep() >= 0, 30000);
    QVERIFY(tests::clickHead(panel->headGrid(), 1, 0));
    QTRY_COMPARE(panel->heatmap()->bandHalfWidth(), 4);
    QVERIFY(!panel->heatmap()->bandEdge(true).isEmpty());
    const QString dirShots = qEnvironmentVariable("ATTNLAB_MAIN_SHOT_DIR");
    if (!dirShots.isEmpty()) {
      for (auto* plot : window.findChildren<widgets::PlotWidget*>()) plot->replotNow();
      QVERIFY(window.grab().save(dirShots + "/attention-band.png"));
    }
    QVERIFY(tests::clickHead(panel->headGrid(), 0, 0));
    QTRY_COMPARE(panel->heatmap()->bandHalfWidth(), -1);
  }

  void badInputGetsAMessageAndTheWindowResponds() {
    app::MainWindow window;
    window.show();
    QDir().mkpath(qpath("not-a-run"));
    QVERIFY(window.openRun(qpath("not-a-run")) == nullptr);
    QVERIFY2(window.parts().notices->lastError().contains("not an AttnLab run"),
             qPrintable(window.parts().notices->lastError()));
    QVERIFY(window.parts().notices->lastError().contains(QDir::cleanPath(qpath("not-a-run"))));
    QTRY_VERIFY(window.findChild<QMessageBox*>("errorBox") != nullptr);
    QVERIFY(window.parts().console->text().contains("not an AttnLab run"));
    closeMessageBoxes(window);
    // A run directory on a read-only location fails before training, with the reason.
    window.parts().training->start(m_config, QStringLiteral("/proc/attnlab-run"));
    QTRY_VERIFY_WITH_TIMEOUT(!window.parts().training->inProcess()->isRunning(), 30000);
    QVERIFY2(window.parts().notices->lastError().contains("/proc/attnlab-run"),
             qPrintable(window.parts().notices->lastError()));
    closeMessageBoxes(window);
    // The window still works: About opens.
    window.findChild<QAction*>("aboutAction")->trigger();
    QTRY_VERIFY(window.findChild<QMessageBox*>("aboutBox") != nullptr);
    closeMessageBoxes(window);
  }

  void droppingARunFolderOpensIt() {
    core::RunConfig c = m_config;
    std::ofstream(path("drop.toml")) << core::toToml(c);
    const QString dir = qpath("dropped");
    const auto r =
        tests::runCli({"train", "--config", qpath("drop.toml"), "--run-dir", dir, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    app::MainWindow window;
    window.show();
    QMimeData data;
    data.setUrls({QUrl::fromLocalFile(dir)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QCOMPARE(window.parts().runs->runs().size(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(window.parts().runs->runs().front()->status(),
                              app::RunStatus::Finished, 10000);
  }

  void closingWhileTrainingAsksFirst() {
    core::RunConfig c = m_config;
    c.schedule.steps = 100000;
    auto* window = new app::MainWindow;
    window->show();
    const QString dir = qpath("closing");
    QVERIFY(window->parts().training->start(c, dir));
    QTRY_VERIFY_WITH_TIMEOUT(
        window->parts().training->inProcess()->status() == app::RunStatus::Training, 60000);
    window->close();
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = window->findChild<QMessageBox*>("closeWhileTrainingBox")) != nullptr);
    QTest::mouseClick(box->findChild<QPushButton*>("keepWindowButton"), Qt::LeftButton);
    QTRY_VERIFY(window->findChild<QMessageBox*>("closeWhileTrainingBox") == nullptr);
    QVERIFY(window->isVisible());
    QVERIFY(window->parts().training->inProcess()->isRunning());
    window->close();
    QTRY_VERIFY((box = window->findChild<QMessageBox*>("closeWhileTrainingBox")) != nullptr);
    QTest::mouseClick(box->findChild<QPushButton*>("stopAndCloseButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!window->isVisible(), 60000);
    QVERIFY(!window->parts().training->inProcess()->isRunning());
    QVERIFY(!QDir(dir + "/checkpoints").entryList({"*.h5"}, QDir::Files).isEmpty());
    delete window;
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
