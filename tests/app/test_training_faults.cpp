// Faults in the middle of a run the app trains:
// - the app killed with SIGKILL while it trains leaves a run that `attnlab-cli train` and the
//   app (Resume in the runs list) both resume to checkpoints bitwise identical to a run that
//   was never interrupted;
// - a full disk mid-run (the file-size limit stands in for it, as in the plot-export test)
//   stops the run with a message that names the file and the cause ("the disk is full"),
//   keeps the last checkpoint intact and the log whole (read by the engine and by h5py),
//   and the same run resumes once there is room.

// LibTorch before Qt: Qt's `slots` keyword macro would break LibTorch's headers.
#include <torch/torch.h>

#include "app/gui/main_window.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/training_controller.h"
#include "app/gui/training_coordinator.h"
#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/runlog/run_log_reader.h"
#include "core/train/run_directory_lock.h"
#include "tests/support/checkpoint_equality.h"
#include "tests/support/cli_process.h"
#include "tests/support/session_end.h"
#include "tests/support/tiny_run_setup.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/resource.h>

#include <csignal>
#include <fstream>

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

const QString kApp = QStringLiteral(ATTNLAB_BINARY_DIR "/bin/attnlab");

std::int64_t latestCheckpointStep(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir / "checkpoints", ec)) return -1;
  try {
    const auto latest = core::CheckpointStore(dir, 2, true).latest();
    return latest ? latest->step : -1;
  } catch (const std::exception&) {
    return -1;  // a checkpoint being renamed into place as we look
  }
}

bool hasEvent(const fs::path& dir, const std::string& kind) {
  const auto events = core::RunLogReader((dir / "run.h5").string()).events();
  return std::any_of(events.begin(), events.end(),
                     [&kind](const core::RunEvent& e) { return e.kind == kind; });
}

/// Holds RLIMIT_FSIZE at `bytes` (writes past it fail with EFBIG instead of SIGXFSZ) until
/// destroyed. The limit binds root too, so this runs wherever the suite does.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &m_saved);
    m_handler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit tight = m_saved;
    tight.rlim_cur = bytes;
    m_ok = setrlimit(RLIMIT_FSIZE, &tight) == 0;
  }
  ~FileSizeLimit() { lift(); }
  bool ok() const { return m_ok; }
  void lift() {
    if (!m_ok) return;
    setrlimit(RLIMIT_FSIZE, &m_saved);
    std::signal(SIGXFSZ, m_handler);
    m_ok = false;
  }

 private:
  struct rlimit m_saved {};
  void (*m_handler)(int) = nullptr;
  bool m_ok = false;
};

}  // namespace

class TestTrainingFaults : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  core::RunConfig m_config;
  fs::path m_toml;
  fs::path m_reference;

  fs::path path(const char* name) const { return fs::path(m_dir.path().toStdString()) / name; }
  QString qpath(const fs::path& p) const { return QString::fromStdString(p.string()); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    // Settings of this test only (the window remembers recent runs).
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath("settings"));
    QStandardPaths::setTestModeEnabled(true);

    m_config = tests::prepareTinyRun(m_dir.path().toStdString());
    // Long enough to be killed in the middle, with several checkpoints before and after.
    m_config.schedule.steps = 300;
    m_config.train.checkpointEvery = 50;
    m_config.train.evalEvery = 50;
    m_config.train.logEvery = 5;
    m_toml = path("faults.toml");
    std::ofstream(m_toml) << core::toToml(m_config);

    // The reference: the CLI, never interrupted.
    m_reference = path("reference");
    const auto r = tests::runCli(
        {"train", "--config", qpath(m_toml), "--run-dir", qpath(m_reference), "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
  }

  void appKilledMidRunResumesInTheCliAndTheApp() {
    const fs::path killed = path("killed");
    QProcess app;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_dir.filePath("app-config"));
    app.setProcessEnvironment(env);
    app.start(kApp, {"--train", qpath(m_toml), "--run-dir", qpath(killed)});
    QVERIFY(app.waitForStarted());
    // Killed after its second checkpoint, with the run well short of its end.
    QTRY_VERIFY_WITH_TIMEOUT(latestCheckpointStep(killed) >= 100, 120000);
    QVERIFY2(app.state() == QProcess::Running, qPrintable(app.readAllStandardError()));
    app.kill();  // SIGKILL: no handler, no clean-up
    QVERIFY(app.waitForFinished(10000));
    QCOMPARE(app.exitStatus(), QProcess::CrashExit);
    const std::int64_t killedAt = latestCheckpointStep(killed);
    QVERIFY2(killedAt < m_config.schedule.steps, "the run ended before it was killed");

    // The kernel released the run-directory lock; the log opens.
    QVERIFY(!core::runDirectoryHolder(killed).has_value());
    QVERIFY(core::RunLogReader((killed / "run.h5").string()).scalarRows("train/loss") > 0);

    // Two copies of what the kill left: one for the CLI, one for the app.
    const fs::path inApp = path("killed-app");
    fs::copy(killed, inApp, fs::copy_options::recursive);

    // The CLI resumes with the same command line.
    const auto r =
        tests::runCli({"train", "--config", qpath(m_toml), "--run-dir", qpath(killed), "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    tests::compareLatestCheckpoints(m_reference, killed, m_config.schedule.steps);
    QVERIFY(hasEvent(killed, "resume"));

    // The app: open the run (an interrupted run reads as incomplete), Resume in the runs list.
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    app::RunSession* run = window.openRun(qpath(inApp));
    QVERIFY(run != nullptr);
    QTRY_COMPARE_WITH_TIMEOUT(run->status(), app::RunStatus::Incomplete, 10000);
    window.parts().runsPanel->selectOnly(run);
    auto* resume = window.parts().runsPanel->findChild<QPushButton*>("resumeRunButton");
    QTRY_VERIFY(resume->isEnabled());
    QTest::mouseClick(resume, Qt::LeftButton);
    QTRY_VERIFY(window.parts().training->inProcess()->isRunning());
    run = window.parts().runs->find(qpath(inApp));  // training reopens the run
    QVERIFY(run != nullptr);
    QTRY_COMPARE_WITH_TIMEOUT(run->status(), app::RunStatus::Finished, 120000);
    tests::compareLatestCheckpoints(m_reference, inApp, m_config.schedule.steps);
    QVERIFY(hasEvent(inApp, "resume"));
    // The views read the resumed log afresh: no step twice, none going back (rows the kill
    // left past the checkpoint were cut when the engine reopened the log).
    const auto lossSteps = [run] {
      const auto it = run->scalars().find(QStringLiteral("train/loss"));
      return it == run->scalars().end() ? std::vector<double>() : it->second.steps;
    };
    QTRY_COMPARE_WITH_TIMEOUT(lossSteps().back(), double(m_config.schedule.steps), 10000);
    const auto loss = lossSteps();
    QVERIFY(std::adjacent_find(loss.begin(), loss.end(), std::greater_equal<double>()) ==
            loss.end());
  }

  void fullDiskMidRunStopsWithTheLastCheckpointIntact() {
    const fs::path dir = path("full");
    app::TrainingController controller;
    QSignalSpy finished(&controller, &app::TrainingController::finished);
    controller.pauseAtStep(60);  // after the checkpoint at 50
    QVERIFY(controller.start(m_config, qpath(dir)));
    QTRY_COMPARE_WITH_TIMEOUT(controller.status(), app::RunStatus::Paused, 120000);
    const auto before = core::CheckpointStore(dir, 2, true).latest();
    QVERIFY(before);
    QCOMPARE(before->step, std::int64_t{50});
    const auto saved = core::CheckpointStore::load(before->path);

    // The disk fills: no file may grow more than 64 kB past the larger of the log and the
    // checkpoint, less than a checkpoint or the log's reserve needs.
    const auto checkpointBytes = fs::file_size(before->path);
    FileSizeLimit full(std::max(checkpointBytes, fs::file_size(dir / "run.h5")) + (64 << 10));
    QVERIFY(full.ok());
    controller.resume();
    QVERIFY(finished.wait(120000));
    full.lift();
    QCOMPARE(test::endedWell(finished), false);
    QCOMPARE(controller.status(), app::RunStatus::Failed);
    const QString message = finished.first().at(1).toString();
    qInfo("the run stopped with: %s", qPrintable(message));
    // What and where: the file that could not be written and why.
    QVERIFY2(message.contains(qpath(dir)), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("the disk is full")), qPrintable(message));

    // The last checkpoint is intact; no process holds the directory.
    const auto after = core::CheckpointStore(dir, 2, true).latest();
    QVERIFY(after);
    QCOMPARE(after->step, std::int64_t{50});
    const auto reread = core::CheckpointStore::load(after->path);
    for (const auto& [key, t] : saved.tensors)
      QVERIFY2(torch::equal(t, reread.tensors.at(key)), key.c_str());
    QVERIFY(!core::runDirectoryHolder(dir).has_value());
    // The log was closed whole: the engine's reader and h5py (a plain, non-SWMR open) read
    // it, with every row up to the last checkpoint.
    const fs::path log = dir / "run.h5";
    const auto loss = core::RunLogReader(log.string()).scalar("train/loss");
    QVERIFY(!loss.steps.empty());
    qInfo("the log's train/loss reaches step %lld", static_cast<long long>(loss.steps.back()));
    QVERIFY(loss.steps.back() >= 50);
    const auto h5py =
        tests::runProcess(tests::kPython, {"-c",
                                           "import h5py,sys; f=h5py.File(sys.argv[1],'r'); "
                                           "print(int(f['scalars/train/loss/step'][()].max()))",
                                           qpath(log)});
    QVERIFY2(h5py.exitCode == 0, qPrintable(h5py.err));
    QVERIFY2(h5py.out.trimmed().toInt() >= 50, qPrintable(h5py.out));

    // Room again: the same run resumes to the uninterrupted result.
    finished.clear();
    QVERIFY(controller.start(m_config, qpath(dir)));
    QVERIFY(finished.wait(120000));
    QVERIFY2(test::endedWell(finished), qPrintable(finished.first().at(1).toString()));
    tests::compareLatestCheckpoints(m_reference, dir, m_config.schedule.steps);
  }
};

QTEST_MAIN(TestTrainingFaults)
#include "test_training_faults.moc"
