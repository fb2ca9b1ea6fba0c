// attnlab-cli train killed with SIGKILL, then resumed by the same command, ends where an
// uninterrupted run ends: the newest checkpoint bitwise equal (parameters, AdamW moments, RNG
// state), and a run log whose every scalar and series has the uninterrupted run's steps and
// values, the same checkpoint rows, and a 'resume' event (tests/support/compare_run_logs.py,
// h5py). Kills:
// - forced at the two edges of a checkpoint (ATTNLAB_KILL_AT, core/runtime/fault_injection.h):
//   right after it is renamed into place (the window in which the log used to lack rows a
//   resume trusts), and after the log is synced but before the rename; and while a new run
//   log is made (its layout written under a temporary name, not yet renamed);
// - the desktop app killed just after a checkpoint appears: the CLI resumes its run the same;
// - at random moments, twice per trial, in several trials (the seed is printed; set
//   ATTNLAB_KILL_SEED to replay one).
#include "tests/support/checkpoint_equality.h"
#include "tests/support/cli_process.h"
#include "tests/support/tiny_run_setup.h"

#include "core/config/config_loader.h"

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace attnlab;

namespace {

constexpr int kSteps = 48;
const QString kCompareLogs =
    QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/support/compare_run_logs.py");

/// How one attempt ended.
struct Attempt {
  bool killed = false;  ///< ended by SIGKILL
  int exitCode = -1;
  QString output;
};

}  // namespace

class TestCliCrashResume : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_config;
  qint64 m_referenceMs = 0;

  QString path(const QString& name) const { return m_dir.filePath(name); }
  QStringList trainArgs(const QString& run) const {
    return {"train", "--config", m_config, "--run-dir", run, "--plain"};
  }

  /// Trains `run`; with `killAt` set (ATTNLAB_KILL_AT) or `killAfterMs` >= 0 the process is
  /// killed there.
  Attempt train(const QString& run, const QString& killAt = {}, qint64 killAfterMs = -1) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!killAt.isEmpty()) env.insert("ATTNLAB_KILL_AT", killAt);
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(tests::kCli, trainArgs(run));
    Attempt a;
    if (!p.waitForStarted()) return a;
    if (killAfterMs >= 0 && !p.waitForFinished(static_cast<int>(killAfterMs))) p.kill();
    p.waitForFinished(300000);
    a.killed = p.exitStatus() == QProcess::CrashExit;
    a.exitCode = a.killed ? -1 : p.exitCode();
    a.output = QString::fromUtf8(p.readAll());
    return a;
  }

  /// Resumes `run` to the end and compares it with the uninterrupted reference.
  void resumeAndCompare(const QString& run) {
    // A kill before the first checkpoint leaves nothing to resume from: the run starts over.
    const bool checkpointed = !QDir(run + "/checkpoints").entryList({"step-*.h5"}).isEmpty();
    const Attempt resumed = train(run);
    QVERIFY2(!resumed.killed && resumed.exitCode == 0, qPrintable(resumed.output));
    tests::compareLatestCheckpoints(path("reference").toStdString(), run.toStdString(), kSteps);
    if (QTest::currentTestFailed()) return;
    QStringList compare = {kCompareLogs, path("reference/run.h5"), run + "/run.h5"};
    if (checkpointed) compare << "--expect-resume";
    const auto logs = tests::runProcess(tests::kPython, compare);
    qInfo("%s", qPrintable(logs.out.trimmed().section('\n', -1)));
    QVERIFY2(logs.exitCode == 0, qPrintable(logs.out + logs.err));
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    core::RunConfig config = tests::prepareTinyRun(m_dir.path().toStdString());
    config.schedule.steps = kSteps;
    config.train.checkpointEvery = 8;
    config.train.evalEvery = 8;
    config.log.snapshotEvery = 8;
    config.log.flushSeconds = 1.0;  // the default: rows wait up to a second in the queue
    m_config = path("tiny.toml");
    std::ofstream(m_config.toStdString()) << core::toToml(config);
    QElapsedTimer timer;
    timer.start();
    const Attempt reference = train(path("reference"));
    m_referenceMs = timer.elapsed();
    QVERIFY2(
        !reference.killed && reference.exitCode == 0,
        qPrintable(QStringLiteral("exit %1: %2").arg(reference.exitCode).arg(reference.output)));
    qInfo("uninterrupted run: %d steps in %lld ms", kSteps, static_cast<long long>(m_referenceMs));
  }

  void killedAtACheckpointsEdge_data() {
    QTest::addColumn<QString>("point");
    QTest::newRow("just after the rename") << "checkpoint-published@16";
    QTest::newRow("log synced, not yet renamed") << "before-checkpoint-publish@16";
    // Not a checkpoint's: a new log whose layout is written but not yet renamed into place
    // (a kill there once left a run.h5 that no later attempt could open).
    QTest::newRow("while the run log is made") << "run-log-made@0";
  }
  void killedAtACheckpointsEdge() {
    QFETCH(QString, point);
    const QString run = path("edge-" + point.section('@', 0, 0));
    const Attempt killed = train(run, point);
    QVERIFY2(killed.killed, qPrintable(killed.output));
    // What the kill left: the log already holds the rows up to step 16 when the checkpoint
    // is visible; when it is not, the resume goes back to step 8.
    const bool published = point.startsWith("checkpoint-published");
    QVERIFY(!QFile::exists(run + "/run.h5") || !point.startsWith("run-log-made"));
    QCOMPARE(QFile::exists(run + "/checkpoints/step-0000016.h5"), published);
    resumeAndCompare(run);
  }

  void theAppKilledLeavesARunTheCliResumes() {
    // The app trains on a thread of its own with the same engine; killed just after a
    // checkpoint appears, what it leaves resumes from the command line like the CLI's own.
    const QString app = QStringLiteral(ATTNLAB_BINARY_DIR "/bin/attnlab");
    if (!QFile::exists(app)) QSKIP("the desktop app is not built (headless configuration)");
    const QString run = path("app-killed");
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("ATTNLAB_KILL_AT", "checkpoint-published@16");
    env.insert("QT_QPA_PLATFORM", "offscreen");
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(app, {"--train", m_config, "--run-dir", run});
    QVERIFY(p.waitForFinished(120000));
    QVERIFY2(p.exitStatus() == QProcess::CrashExit, p.readAll().constData());
    QVERIFY(QFile::exists(run + "/checkpoints/step-0000016.h5"));
    resumeAndCompare(run);
  }

  void killedAtRandomMoments() {
    bool replay = false;
    const quint32 seed = qEnvironmentVariableIntValue("ATTNLAB_KILL_SEED", &replay);
    QRandomGenerator random(replay ? seed : QRandomGenerator::global()->generate());
    const quint32 used = replay ? seed : random.generate();
    random.seed(used);
    qInfo("kill seed %u (ATTNLAB_KILL_SEED=%u replays it)", used, used);
    for (int trial = 0; trial < 3; ++trial) {
      const QString run = path(QStringLiteral("random-%1").arg(trial));
      for (int kill = 0; kill < 2; ++kill) {
        // Anywhere from start-up to near the end of an uninterrupted run's time.
        const qint64 after = random.bounded(static_cast<int>(m_referenceMs));
        const Attempt a = train(run, {}, after);
        qInfo("trial %d: killed after %lld ms: %s", trial, static_cast<long long>(after),
              a.killed ? "killed" : "had finished");
        QVERIFY2(a.killed || a.exitCode == 0, qPrintable(a.output));
      }
      resumeAndCompare(run);
      if (QTest::currentTestFailed()) return;
    }
  }
};

QTEST_GUILESS_MAIN(TestCliCrashResume)
#include "test_cli_crash_resume.moc"
