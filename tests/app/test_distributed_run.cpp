// Data-parallel runs from the app, driven as a person drives the real main window (QTest
// keys and clicks, offscreen): File > New run with the tiny preset on the regular corpus,
// "Processes on this machine" set to 2, Start. attnlab-cli (next to this test, as it is next
// to the app) trains it in 2 worker processes; the runs list shows one run whose status
// says "2 processes", its curves come from rank 0's log, the console gets the "[rank r]"
// lines. Stop ends it as stopped with a checkpoint, Resume continues it in 2 processes,
// closing the window asks first and stops it cleanly; a failing rank shows as failed with
// the launcher's error; a master port that is taken is retried.

#include "app/gui/distributed_run_launcher.h"
#include "app/gui/main_window.h"
#include "app/gui/new_run/new_run_dialog.h"
#include "app/gui/notices.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/console_dock.h"
#include "app/gui/panels/run_status_bar.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/training_controller.h"
#include "app/gui/training_coordinator.h"
#include "core/runlog/run_log_reader.h"
#include "tests/support/form_typing.h"
#include "tests/support/listening_socket.h"
#include "tests/support/tiny_run_setup.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <memory>
#include <optional>

using namespace attnlab;

namespace {

using tests::Listener;

using tests::openNewRunDialog;
using tests::typeField;

std::vector<core::RunEvent> logEvents(const QString& runDir) {
  return core::RunLogReader((runDir + "/run.h5").toStdString()).events();
}

QString eventMessage(const std::vector<core::RunEvent>& events, const std::string& kind) {
  for (auto it = events.rbegin(); it != events.rend(); ++it)
    if (it->kind == kind) return QString::fromStdString(it->message);
  return {};
}

int checkpointCount(const QString& runDir) {
  return static_cast<int>(
      QDir(runDir + "/checkpoints").entryList({"step-*.h5"}, QDir::Files).size());
}

}  // namespace

class TestDistributedRun : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  core::RunConfig m_config;

  QString qpath(const QString& name) const { return m_dir.filePath(name); }

  /// The tiny preset on the test corpus and tokenizer, small enough for a few seconds:
  /// `steps` steps of batch 4 x 24 tokens, a log row per step, in `processes` processes.
  /// Returns the run folder the dialog proposes (<runs folder>/<name>), empty on failure.
  QString fillTinyRun(app::NewRunDialog* dialog, const QString& name, const QString& steps,
                      int processes) {
    auto* preset = dialog->findChild<QComboBox*>("presetCombo");
    if (preset == nullptr) return {};
    preset->setFocus();
    QTest::keyClicks(preset, "tiny");
    const bool typed = dialog->currentPreset() == QStringLiteral("tiny") &&
                       typeField(dialog, "run.name", name) &&
                       typeField(dialog, "corpus.source", "text") &&
                       typeField(dialog, "corpus.paths", qpath("corpus.txt")) &&
                       typeField(dialog, "tokenizer.model", qpath("tok.model")) &&
                       typeField(dialog, "schedule.steps", steps) &&
                       typeField(dialog, "schedule.warmup_steps", "2") &&
                       typeField(dialog, "train.batch_size", "4") &&
                       typeField(dialog, "data.sequence_length", "24") &&
                       typeField(dialog, "train.log_every", "1");
    if (!typed) return {};
    auto* spin = dialog->findChild<QSpinBox*>("processesSpin");
    if (spin == nullptr) return {};
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QString::number(processes));
    if (spin->value() != processes || !dialog->startButton()->isEnabled()) return {};
    return dialog->runDirectory();
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, qpath("settings"));
    QStandardPaths::setTestModeEnabled(true);
    QSettings().setValue(QStringLiteral("paths/runsFolder"), qpath("runs"));
    qunsetenv("ATTNLAB_CONFIG_DIR");  // the presets of the source tree
    m_config = tests::prepareTinyRun(m_dir.path().toStdString());
  }

  void theDialogOffersTheProcesses() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    app::NewRunDialog* dialog = openNewRunDialog(window);
    QVERIFY(dialog != nullptr);
    auto* spin = dialog->findChild<QSpinBox*>("processesSpin");
    QVERIFY(spin != nullptr);
    QCOMPARE(spin->value(), 1);
    QCOMPARE(spin->minimum(), 1);
    QCOMPARE(spin->maximum(), std::max(1, QThread::idealThreadCount()));
    for (const char* part :
         {"c10d", "Gloo", "micro-batches", "batch size × accumulation × processes",
          "cores / processes", "Pause and Checkpoint now"})
      QVERIFY2(spin->toolTip().contains(part), part);
    QCOMPARE(dialog->processesNote(), QStringLiteral("Trains inside the app."));
    if (spin->maximum() < 2) QSKIP("one core: the box offers 1 process only");
    QVERIFY(typeField(dialog, "train.batch_size", "4"));
    QVERIFY(typeField(dialog, "train.gradient_accumulation", "3"));
    spin->setFocus();
    QTest::keyClick(spin, Qt::Key_Up);
    QCOMPARE(dialog->processes(), 2);
    QVERIFY2(dialog->processesNote().contains("global batch 4 × 3 × 2 = 24 sequences per step"),
             qPrintable(dialog->processesNote()));
    const int perProcess = std::max(1, QThread::idealThreadCount() / 2);
    QVERIFY2(dialog->processesNote().contains(
                 QString("%1 thread%2 each").arg(perProcess).arg(perProcess == 1 ? "" : "s")),
             qPrintable(dialog->processesNote()));
    // For a person to look at: <temp>/new_run_dialog_processes.png.
    QVERIFY(dialog->grab().save(QDir::temp().filePath("new_run_dialog_processes.png")));
    dialog->close();
  }

  void twoProcessesTrainAsOneRun() {
    if (QThread::idealThreadCount() < 2) QSKIP("needs 2 cores");
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // Every row text and status-bar text the run shows, from its first status on.
    QStringList rows, statusBar;
    connect(window.parts().runs, &app::OpenedRuns::runOpened, this, [&](app::RunSession* run) {
      const auto record = [&, run] {
        rows << window.parts().runsPanel->rowText(run);
        statusBar << window.parts().statusBar->text();
      };
      connect(run, &app::RunSession::statusChanged, this, record);
      connect(run, &app::RunSession::stepChanged, this, record);
    });

    app::NewRunDialog* dialog = openNewRunDialog(window);
    QVERIFY(dialog != nullptr);
    const QString runDir = fillTinyRun(dialog, "two", "8", 2);
    QVERIFY2(!runDir.isEmpty(), qPrintable(dialog->summaryText()));
    QCOMPARE(runDir, QDir::cleanPath(qpath("runs/two")));
    QTest::mouseClick(dialog->startButton(), Qt::LeftButton);

    QTRY_VERIFY(window.parts().training->launcher()->isRunning());
    QVERIFY(!window.parts().training->inProcess()->isRunning());
    QCOMPARE(window.parts().training->launcher()->processes(), 2);
    app::RunSession* run = window.parts().runs->find(runDir);
    QVERIFY(run != nullptr);
    QTRY_COMPARE_WITH_TIMEOUT(run->status(), app::RunStatus::Finished, 60000);
    QVERIFY(!window.parts().training->launcher()->isRunning());
    qInfo("rows: %s", qPrintable(rows.join(" | ").replace('\n', ' ')));

    // One entry for the one run (rank 0's log), with the whole schedule.
    QCOMPARE(window.parts().runs->runs().size(), 1);
    QCOMPARE(window.parts().runsPanel->list()->count(), 1);
    QCOMPARE(window.parts().runsPanel->list()->item(0)->toolTip(), runDir);
    QTRY_VERIFY(window.parts().runsPanel->rowText(run).contains("finished · 8 / 8"));
    // While it trained, the row and the status bar said so, never "another process".
    QVERIFY2(rows.filter("training · 2 processes").size() > 0, qPrintable(rows.join(" | ")));
    QVERIFY2(rows.filter("preparing data · 2 processes").size() > 0, qPrintable(rows.join(" | ")));
    QVERIFY2(statusBar.filter("two: training · 2 processes").size() > 0,
             qPrintable(statusBar.join(" | ")));
    QVERIFY(rows.filter("live in another process").isEmpty());
    // The views read rank 0's log: a loss point per step.
    QTRY_COMPARE_WITH_TIMEOUT(run->scalars().at("train/loss").steps.size(), std::size_t{8}, 10000);
    // The log records the world size.
    const auto events = logEvents(runDir);
    QVERIFY2(eventMessage(events, "distributed").startsWith("data-parallel over 2 processes"),
             qPrintable(eventMessage(events, "distributed")));
    QVERIFY(!eventMessage(events, "finished").isEmpty());
    QCOMPARE(checkpointCount(runDir), 1);
    // The launcher's output is the console's: rank 0's progress and milestones (rank 1
    // speaks only when something goes wrong, or is stopped: the next test).
    const QString console = window.parts().console->text();
    QVERIFY2(console.contains("[rank 0] data-parallel over 2 processes"), qPrintable(console));
    QVERIFY(console.contains("[rank 0] step 8/8"));
    QVERIFY(console.contains("[rank 0] done: 8 steps"));
  }

  void stopResumeInTwoProcessesAndCloseWhileTraining() {
    if (QThread::idealThreadCount() < 2) QSKIP("needs 2 cores");
    // Deleted at the end, also when a check fails: its launcher then stops the processes.
    auto owner = std::make_unique<app::MainWindow>();
    app::MainWindow* window = owner.get();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window));
    app::NewRunDialog* dialog = openNewRunDialog(*window);
    QVERIFY(dialog != nullptr);
    const QString runDir = fillTinyRun(dialog, "stopped", "100000", 2);
    QVERIFY2(!runDir.isEmpty(), qPrintable(dialog->summaryText()));
    QTest::mouseClick(dialog->startButton(), Qt::LeftButton);
    QTRY_VERIFY(window->parts().training->launcher()->isRunning());
    app::RunSession* run = window->parts().runs->find(runDir);
    QVERIFY(run != nullptr);
    QTRY_VERIFY_WITH_TIMEOUT(run->step() >= 3, 60000);
    QCOMPARE(run->status(), app::RunStatus::Training);
    QVERIFY(window->parts().runsPanel->rowText(run).contains("training · 2 processes"));
    // Pause and Checkpoint now are off for it, and say why; Stop and the Stop button are on;
    // the run cannot be closed while it trains.
    auto* pause = window->findChild<QAction*>("pauseAction");
    auto* checkpoint = window->findChild<QAction*>("checkpointAction");
    QVERIFY(!pause->isEnabled() && !checkpoint->isEnabled());
    QVERIFY2(pause->toolTip().contains("not for a run in 2 processes"),
             qPrintable(pause->toolTip()));
    QVERIFY(window->findChild<QAction*>("stopAction")->isEnabled());
    auto* stopButton = window->parts().runsPanel->findChild<QPushButton*>("stopRunButton");
    QVERIFY(stopButton->isEnabled());
    QVERIFY(!window->parts().runsPanel->findChild<QPushButton*>("closeRunButton")->isEnabled());

    // Stop: the launcher passes SIGTERM on, rank 0 checkpoints, the entry ends as stopped.
    QTest::mouseClick(stopButton, Qt::LeftButton);
    QCOMPARE(run->status(), app::RunStatus::Stopping);
    QVERIFY(window->parts().runsPanel->rowText(run).contains("stopping · 2 processes"));
    QTRY_COMPARE_WITH_TIMEOUT(run->status(), app::RunStatus::Stopped, 30000);
    QVERIFY(!window->parts().training->launcher()->isRunning());
    const QStringList checkpoints =
        QDir(runDir + "/checkpoints").entryList({"step-*.h5"}, QDir::Files);
    QCOMPARE(checkpoints.size(), 1);
    QVERIFY(!eventMessage(logEvents(runDir), "stopped").isEmpty());
    const QString console = window->parts().console->text();
    QVERIFY2(console.contains("[rank 1] stopping after this step"), qPrintable(console));
    QVERIFY(console.contains("[rank 0] stopping after this step"));
    QTRY_VERIFY(window->parts().runsPanel->rowText(run).contains("stopped"));
    // Resume takes as many processes: the window remembers them, and the log says so too.
    QCOMPARE(run->processes(), 2);
    QTRY_COMPARE(run->recordedProcesses(), 2);
    const std::int64_t stoppedAt = checkpoints.front().mid(5, 7).toLongLong();
    QVERIFY(stoppedAt >= 3);

    // Resume (the runs list's button): in 2 processes again, from the checkpoint.
    auto* resume = window->parts().runsPanel->findChild<QPushButton*>("resumeRunButton");
    QTRY_VERIFY(resume->isEnabled());
    QTest::mouseClick(resume, Qt::LeftButton);
    QTRY_VERIFY(window->parts().training->launcher()->isRunning());
    QCOMPARE(window->parts().training->launcher()->processes(), 2);
    app::RunSession* resumed = window->parts().runs->find(runDir);
    QVERIFY(resumed != nullptr);
    QCOMPARE(window->parts().runs->runs().size(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(resumed->step() > stoppedAt + 1, 60000);
    QVERIFY(window->parts().runsPanel->rowText(resumed).contains("training · 2 processes"));
    // The watcher read the resumed log (a reader of our own would share its cached view).
    const auto resumedFrom = [resumed] {
      for (const app::RunMessage& m : resumed->messages())
        if (m.kind == QStringLiteral("resume")) return m.text;
      return QString();
    };
    QTRY_VERIFY2(resumedFrom().endsWith(checkpoints.front()), qPrintable(resumedFrom()));

    // Closing the window asks; Stop and close stops the processes cleanly first.
    window->close();
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = window->findChild<QMessageBox*>("closeWhileTrainingBox")) != nullptr);
    QVERIFY2(box->text().contains("in 2 processes"), qPrintable(box->text()));
    QTest::mouseClick(box->findChild<QPushButton*>("stopAndCloseButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!window->isVisible(), 30000);
    QVERIFY(!window->parts().training->launcher()->isRunning());
    QCOMPARE(resumed->status(), app::RunStatus::Stopped);
    QCOMPARE(checkpointCount(runDir), 2);
  }

  void aFailingRankShowsFailedWithItsError() {
    if (QThread::idealThreadCount() < 2) QSKIP("needs 2 cores");
    app::MainWindow window;
    window.show();
    core::RunConfig config = m_config;
    config.corpus.paths = {qpath("no-such-corpus.txt").toStdString()};
    const QString runDir = qpath("runs/failing");
    QVERIFY(window.parts().training->start(config, runDir, 2));
    app::RunSession* run = window.parts().runs->find(runDir);
    QVERIFY(run != nullptr);
    QTRY_COMPARE_WITH_TIMEOUT(run->status(), app::RunStatus::Failed, 60000);
    // The launcher's last line names the rank it saw end first. When that is rank 1, which
    // only lost its peer, rank 0's own error (the first) is added to the message.
    qInfo("%s", qPrintable(window.parts().notices->lastError()));
    const QString error = window.parts().notices->lastError();
    QVERIFY2(error.contains("attnlab-cli train: error: rank ") &&
                 (error.contains("error: rank 0 exited with status 1") ||
                  error.contains("first error: [rank 0] attnlab-cli train: error: ")) &&
                 error.contains("no-such-corpus.txt: corpus path does not exist"),
             qPrintable(error));
    QTRY_VERIFY(window.findChild<QMessageBox*>("errorBox") != nullptr);
    QVERIFY(window.parts().runsPanel->rowText(run).contains("failed"));
    for (QMessageBox* box : window.findChildren<QMessageBox*>()) box->close();
  }

  void aTakenMasterPortIsRetried() {
    if (QThread::idealThreadCount() < 2) QSKIP("needs 2 cores");
    Listener squatter;
    QVERIFY(squatter.port > 0);
    app::DistributedRunLauncher launcher;
    QCOMPARE(launcher.cliPath(), QCoreApplication::applicationDirPath() + "/attnlab-cli");
    QStringList lines;
    connect(&launcher, &app::DistributedRunLauncher::message, this,
            [&](const app::RunMessage& line) { lines << line.text; });
    std::optional<app::RunStatus> ended;
    connect(&launcher, &app::DistributedRunLauncher::finished, this,
            [&](app::RunStatus status, const QString&) { ended = status; });
    core::RunConfig config = m_config;
    config.schedule.steps = 4;
    launcher.setMasterPort(squatter.port);
    QString whyNot;
    QVERIFY2(launcher.start(config, qpath("runs/retried"), 2, &whyNot), qPrintable(whyNot));
    QCOMPARE(launcher.masterPort(), squatter.port);
    QTRY_VERIFY_WITH_TIMEOUT(ended.has_value(), 60000);
    QCOMPARE(*ended, app::RunStatus::Finished);
    QVERIFY(launcher.masterPort() != squatter.port);
    const QString all = lines.join('\n');
    QVERIFY2(all.contains("port in use"), qPrintable(all));
    QVERIFY(all.contains(QString("master port %1 is in use; starting again on port %2")
                             .arg(squatter.port)
                             .arg(launcher.masterPort())));
    QVERIFY(all.contains("[rank 0] done: 4 steps"));
  }
};

QTEST_MAIN(TestDistributedRun)
#include "test_distributed_run.moc"
