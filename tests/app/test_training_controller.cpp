// The app's training controller against the CLI: the same tiny config trained on the app's
// engine thread (while the GUI thread draws from LibTorch's global generator, as an
// inspection would) ends with checkpoints bitwise identical to `attnlab-cli train`, also
// with a pause/resume and a stop/resume in the middle; a directory another process trains
// is refused with the holder's name; failures come back as messages, not exceptions.

// LibTorch before Qt: Qt's `slots` keyword macro would break LibTorch's headers.
#include <torch/torch.h>

#include "app/gui/inspection_controller.h"
#include "app/gui/training_controller.h"
#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/runtime/engine_random.h"
#include "core/train/run_directory_lock.h"
#include "tests/support/checkpoint_equality.h"
#include "tests/support/cli_process.h"
#include "tests/support/session_end.h"
#include "tests/support/tiny_run_setup.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <fstream>
#include <mutex>

using namespace attnlab;
namespace fs = std::filesystem;

class TestTrainingController : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  core::RunConfig m_config;
  fs::path m_cliRun;

  fs::path path(const char* name) const { return fs::path(m_dir.path().toStdString()) / name; }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_config = tests::prepareTinyRun(m_dir.path().toStdString());
    QVERIFY(m_config.model.dropout > 0);  // dropout draws random numbers every step

    // The reference: the CLI in its own process.
    m_cliRun = path("cli");
    const fs::path toml = path("tiny.toml");
    std::ofstream(toml) << core::toToml(m_config);
    const auto r =
        tests::runCli({"train", "--config", QString::fromStdString(toml.string()), "--run-dir",
                       QString::fromStdString(m_cliRun.string()), "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
  }

  void matchesTheCliBitwiseWhileTheGuiDrawsRandomNumbers() {
    app::TrainingController controller;
    QSignalSpy finished(&controller, &app::TrainingController::finished);
    // What an inspection does on the GUI thread while the run trains: draw from LibTorch's
    // global generator. The run must not see it.
    QTimer noise;
    int draws = 0;
    connect(&noise, &QTimer::timeout, this, [&draws] {
      // The rule for code outside a run (core/runtime/engine_random.h): draws from the
      // global generator take its lock, so they cannot fall inside a run's seeded
      // construction. Training itself never reads the global generator.
      std::lock_guard<std::mutex> lock(core::globalGeneratorMutex());
      (void)torch::randn({256});
      ++draws;
    });
    noise.start(1);
    const fs::path dir = path("app");
    QVERIFY(controller.start(m_config, QString::fromStdString(dir.string())));
    QVERIFY(controller.isRunning());
    QVERIFY(finished.wait(120000));
    noise.stop();
    QCOMPARE(test::endedWell(finished), true);
    QCOMPARE(controller.status(), app::RunStatus::Finished);
    QVERIFY2(draws > 3, qPrintable(QString::number(draws)));
    tests::compareLatestCheckpoints(m_cliRun, dir, 8);
  }

  // Issue 12's rule: inspections made while a run trains (each one builds a model from a
  // checkpoint, alternating between two so every request constructs one) leave the run's
  // checkpoints bitwise equal to the CLI's.
  void inspectionsMidRunKeepTheBits() {
    app::InspectionController inspector;
    inspector.setCacheBudget(0);  // every request runs the model, none is answered from memory
    const QStringList checkpoints = {
        QString::fromStdString((m_cliRun / "checkpoints" / "step-0000004.h5").string()),
        QString::fromStdString((m_cliRun / "checkpoints" / "step-0000008.h5").string())};
    int inspections = 0;
    bool training = true;
    QString failure;
    connect(&inspector, &app::InspectionController::inspected, this,
            [&](const app::InspectionFrame&) {
              ++inspections;
              if (training)
                inspector.inspect(checkpoints[inspections % 2], QStringLiteral("the cat sat ."));
            });
    connect(&inspector, &app::InspectionController::failed, this,
            [&failure](const QString& message) { failure = message; });
    inspector.inspect(checkpoints[0], QStringLiteral("the cat sat ."));  // before the run starts

    app::TrainingController controller;
    QSignalSpy finished(&controller, &app::TrainingController::finished);
    QStringList kinds;
    connect(&controller, &app::TrainingController::message, this,
            [&kinds](const app::RunMessage& m) { kinds << m.kind; });
    const fs::path dir = path("inspected");
    // The run holds after step 4 until two inspections have been made since it started, so
    // some are made mid-run however busy the machine is (on a loaded machine the 8 steps can
    // otherwise end before the second model is built); the rest overlap the steps.
    controller.pauseAtStep(4);
    QVERIFY(controller.start(m_config, QString::fromStdString(dir.string())));
    QTRY_VERIFY_WITH_TIMEOUT(kinds.contains(QStringLiteral("paused")), 60000);
    const int before = inspections;
    QTRY_VERIFY_WITH_TIMEOUT(inspections >= before + 2, 60000);
    controller.resume();
    QVERIFY(finished.wait(120000));
    training = false;
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    QCOMPARE(test::endedWell(finished), true);
    QVERIFY2(inspections >= 2, qPrintable(QString::number(inspections)));
    tests::compareLatestCheckpoints(m_cliRun, dir, 8);
  }

  void pauseResumeAndStopResumeKeepTheBits() {
    app::TrainingController controller;
    QSignalSpy finished(&controller, &app::TrainingController::finished);
    QSignalSpy steps(&controller, &app::TrainingController::stepReported);
    QStringList kinds;
    connect(&controller, &app::TrainingController::message, this,
            [&kinds](const app::RunMessage& m) { kinds << m.kind; });
    const fs::path dir = path("paused");
    controller.pauseAtStep(2);  // before start: no race with a fast run
    QVERIFY(controller.start(m_config, QString::fromStdString(dir.string())));

    // Paused after step 2, decided on the engine thread so the run holds exactly there.
    QTRY_VERIFY_WITH_TIMEOUT(kinds.contains(QStringLiteral("paused")), 60000);
    QCOMPARE(controller.status(), app::RunStatus::Paused);
    QTRY_COMPARE(controller.progress().done, std::int64_t{2});
    // Held: no step is reported while paused.
    steps.clear();
    QVERIFY(!steps.wait(600));
    QCOMPARE(controller.progress().done, std::int64_t{2});
    // Resume; pause again after step 5 and stop while paused (a stop ends a pause): the
    // run stops in the middle with a checkpoint at step 5.
    controller.pauseAtStep(5);
    controller.resume();
    QTRY_VERIFY_WITH_TIMEOUT(kinds.contains(QStringLiteral("unpaused")), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(kinds.count(QStringLiteral("paused")), 2, 30000);
    QTRY_COMPARE(controller.progress().done, std::int64_t{5});
    controller.stop();
    QVERIFY(finished.wait(60000));
    QCOMPARE(controller.status(), app::RunStatus::Stopped);
    const auto stoppedAt = core::CheckpointStore(dir, 2, true).latest();
    QVERIFY(stoppedAt);
    QCOMPARE(stoppedAt->step, std::int64_t{5});

    // Resume in the same controller, as the runs list's Resume does.
    finished.clear();
    QVERIFY(controller.start(m_config, QString::fromStdString(dir.string())));
    QVERIFY(finished.wait(120000));
    QCOMPARE(test::endedWell(finished), true);
    QCOMPARE(controller.status(), app::RunStatus::Finished);
    tests::compareLatestCheckpoints(m_cliRun, dir, 8);
  }

  // Two processes never train one directory: the app refuses a directory the CLI trains,
  // naming the CLI's process, and the window's controller reports it as a failure.
  void aDirectoryAnotherProcessTrainsIsRefused() {
    core::RunConfig longer = m_config;
    longer.schedule.steps = 100000;
    const fs::path dir = path("busy");
    const fs::path toml = path("long.toml");
    std::ofstream(toml) << core::toToml(longer);
    QProcess cli;
    cli.start(tests::kCli, {"train", "--config", QString::fromStdString(toml.string()), "--run-dir",
                            QString::fromStdString(dir.string()), "--plain"});
    QVERIFY(cli.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(core::runDirectoryHolder(dir).has_value(), 60000);

    app::TrainingController controller;
    QSignalSpy finished(&controller, &app::TrainingController::finished);
    QVERIFY(controller.start(longer, QString::fromStdString(dir.string())));
    QVERIFY(finished.wait(30000));
    QCOMPARE(test::endedWell(finished), false);
    const QString error = finished.first().at(1).toString();
    QVERIFY2(error.contains(QStringLiteral("being trained by pid %1").arg(cli.processId())),
             qPrintable(error));
    QCOMPARE(controller.status(), app::RunStatus::Failed);
    cli.kill();
    cli.waitForFinished();
  }

  // A failure on the engine thread (here: a corpus that does not exist) arrives as a
  // message; nothing escapes the thread.
  void failuresArriveAsMessages() {
    core::RunConfig broken = m_config;
    broken.corpus.paths = {path("missing.txt").string()};
    app::TrainingController controller;
    QSignalSpy finished(&controller, &app::TrainingController::finished);
    QVERIFY(controller.start(broken, QString::fromStdString(path("broken").string())));
    QVERIFY(finished.wait(30000));
    QCOMPARE(test::endedWell(finished), false);
    QVERIFY2(finished.first().at(1).toString().contains(QStringLiteral("missing.txt")),
             qPrintable(finished.first().at(1).toString()));
    QCOMPARE(controller.status(), app::RunStatus::Failed);
    QVERIFY(!controller.isRunning());
  }
};

QTEST_MAIN(TestTrainingController)
#include "test_training_controller.moc"
