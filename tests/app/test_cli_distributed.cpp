// attnlab-cli train --nproc-per-node 2 on loopback, as a person runs it (real processes, the
// regular tiny corpus and tokenizer):
// - 2 workers x 1 micro-batch per step end with the parameters and optimiser state of one
//   process with 2 micro-batches per step (float32, bitwise; the double-precision
//   equivalence is core/test_distributed_step), rank 0 alone writes, the log names the
//   world size;
// - rank 1 killed with SIGKILL mid-run: the launcher exits non-zero within seconds naming
//   rank 1, the last checkpoint stays intact, and the same command resumes to the end;
// - a 2-worker run ended after step 6 (--stop-after-step) and resumed by the same command
//   equals the uninterrupted run bitwise (parameters and AdamW moments);
// - SIGTERM to the launcher alone stops every rank after one step with a checkpoint (exit
//   130); a launcher killed with SIGKILL leaves no worker training;
// - the same run under Debian's torchrun (python3 -m torch.distributed.run --no_python)
//   equals the launcher's bitwise (skipped when python3-torch is absent);
// - a master that nobody serves: the worker's message names address, port and timeout, and
//   nothing is written; a master port already in use: "port in use"; --nproc-per-node under
//   torchrun's environment is refused before anything starts.
#include <ATen/ATen.h>
#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "tests/support/cli_process.h"
#include "tests/support/distributed_workers.h"
#include "tests/support/listening_socket.h"
#include "tests/support/tiny_run_setup.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

using tests::freePort;
using tests::Listener;

using tests::largestDifference;
using tests::workerPid;

}  // namespace

class TestCliDistributed : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_config;

  QString path(const QString& name) const { return m_dir.filePath(name); }
  QStringList trainArgs(const QString& run, const QStringList& extra = {}) const {
    return QStringList{"train", "--config", m_config, "--run-dir", run, "--plain"} + extra;
  }

  /// Starts a 2-worker run of 400 steps in `run` and returns once its step-20 checkpoint
  /// exists, with the workers' pids (QVERIFY-style: a failure is recorded).
  void startLongRunUntilItsFirstCheckpoint(QProcess& launcher, const QString& run,
                                           qint64 (&workers)[2]) {
    launcher.start(
        tests::kCli,
        trainArgs(run, {"--nproc-per-node", "2", "--master-port", QString::number(freePort()),
                        "--set", "schedule.steps=400", "--set", "train.checkpoint_every=20"}));
    QVERIFY(launcher.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(run + "/checkpoints/step-0000020.h5"), 120000);
    for (int rank = 0; rank < 2; ++rank) workers[rank] = workerPid(launcher.processId(), rank);
    QVERIFY(workers[0] > 0 && workers[1] > 0);
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_config = tests::writeShortMultiProcessRun(m_dir.path());
  }

  void twoWorkersEqualOneProcessWithTwiceTheAccumulation() {
    const int port = freePort();
    const auto two = tests::runCli(
        trainArgs(path("two"), {"--nproc-per-node", "2", "--master-port", QString::number(port)}));
    QVERIFY2(two.exitCode == 0, qPrintable(two.err + two.out));
    QVERIFY2(two.out.contains("[rank 0] done: 12 steps"), qPrintable(two.out));
    QVERIFY2(two.out.contains("data-parallel over 2 processes"), qPrintable(two.out));
    QVERIFY2(!two.out.contains("[rank 1] done"), qPrintable(two.out));  // rank 0 reports
    const auto one =
        tests::runCli(trainArgs(path("one"), {"--set", "train.gradient_accumulation=2"}));
    QVERIFY2(one.exitCode == 0, qPrintable(one.err + one.out));
    int compared = 0;
    const double difference =
        largestDifference(path("one/checkpoints/step-0000012.h5").toStdString(),
                          path("two/checkpoints/step-0000012.h5").toStdString(), &compared);
    qInfo("%d tensors (parameters and AdamW moments); largest difference %g", compared, difference);
    QVERIFY(compared > 10);
    // Bitwise: with two ranks each gradient element is one float addition, g0 + g1, the
    // same one accumulation makes (addition commutes exactly).
    QCOMPARE(difference, 0.0);
    // The run log says how it was trained (read with h5py, independently of the engine).
    const auto events = tests::runProcess(
        tests::kPython, {"-c",
                         "import h5py,sys; f=h5py.File(sys.argv[1],'r'); "
                         "print([m.decode() if isinstance(m,bytes) else m for m in "
                         "f['events/message'][()]]); "
                         "print('world sizes', sorted(set(f['events/world_size'][()].tolist())))",
                         path("two/run.h5")});
    QVERIFY2(events.out.contains("data-parallel over 2 processes"),
             qPrintable(events.out + events.err));
    // ... and as a typed field: the start and distributed events carry 2, the others 0.
    QVERIFY2(events.out.contains("world sizes [0, 2]"), qPrintable(events.out + events.err));
  }

  // --progress jsonl through the launcher, read by Python's json module: every line of the
  // launch one object with its rank first; rank 0 reports the world size as a number.
  void jsonProgressOfALaunchNamesEachRank() {
    const auto r = tests::runCli({"train", "--config", m_config, "--run-dir", path("jsonl"),
                                  "--progress", "jsonl", "--nproc-per-node", "2", "--master-port",
                                  QString::number(freePort())});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QFile file(path("launch.jsonl"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(r.out.toUtf8());
    file.close();
    const auto py = tests::runProcess(
        tests::kPython,
        {"-c",
         "import json, sys\n"
         "events = [json.loads(line) for line in open(sys.argv[1])]\n"
         "assert all(list(e)[0] == 'rank' and e['rank'] in (0, 1) for e in events)\n"
         "d = [e for e in events if e['event'] == 'milestone' and e['kind'] == 'distributed']\n"
         "assert len(d) == 1 and d[0]['rank'] == 0 and d[0]['world_size'] == 2, d\n"
         "assert {e['rank'] for e in events if e['event'] == 'step'} == {0}\n"
         "assert any(e['event'] == 'message' and e['text'].startswith('done: 12 steps')\n"
         "           for e in events)\n"
         "print(len(events), 'events, world size', d[0]['world_size'])\n",
         path("launch.jsonl")});
    QVERIFY2(py.exitCode == 0, qPrintable(py.out + py.err + r.out.left(3000)));
    qInfo("%s", qPrintable(py.out.trimmed()));
  }

  void aKilledRankStopsTheOthersAndTheRunResumes() {
    const int port = freePort();
    const QString run = path("killed");
    QStringList args =
        trainArgs(run, {"--nproc-per-node", "2", "--master-port", QString::number(port), "--set",
                        "schedule.steps=400", "--set", "train.checkpoint_every=20"});
    QProcess launcher;
    launcher.start(tests::kCli, args);
    QVERIFY(launcher.waitForStarted());
    // Once a checkpoint exists, kill rank 1 as the machine's OOM killer would.
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(run + "/checkpoints/step-0000020.h5"), 120000);
    const qint64 rank1 = workerPid(launcher.processId(), 1);
    QVERIFY(rank1 > 0);
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(::kill(static_cast<pid_t>(rank1), SIGKILL), 0);
    QVERIFY(launcher.waitForFinished(60000));
    qInfo("the launcher ended %lld ms after the kill", static_cast<long long>(timer.elapsed()));
    QVERIFY(timer.elapsed() < 30000);
    QCOMPARE(launcher.exitCode(), 1);
    const QString err = QString::fromUtf8(launcher.readAllStandardError());
    QVERIFY2(err.contains("rank 1 was killed by signal 9"), qPrintable(err));
    // The checkpoints that were written still load.
    const auto kept = core::CheckpointStore(run.toStdString(), 2, true).latest();
    QVERIFY(kept.has_value());
    QVERIFY(core::CheckpointStore::load(kept->path).step >= 20);
    // The same command (a short schedule, to keep the test quick) resumes to the end.
    args.replace(args.indexOf("schedule.steps=400"),
                 QStringLiteral("schedule.steps=%1").arg(kept->step + 4));
    const auto resumed = tests::runCli(args);
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err + resumed.out));
    QVERIFY2(resumed.out.contains("resum"), qPrintable(resumed.out));
  }

  void aRunStoppedAndResumedEqualsAnUninterruptedOne() {
    // Session 1 ends after step 6 (between the checkpoints every 4 steps), session 2 is the
    // same command without the stop; the end equals the uninterrupted run of the first test.
    QVERIFY(QFile::exists(path("two/checkpoints/step-0000012.h5")));
    const QStringList launch = {"--nproc-per-node", "2", "--master-port",
                                QString::number(freePort())};
    const QString run = path("sessions");
    const auto first =
        tests::runCli(trainArgs(run, launch + QStringList{"--stop-after-step", "6"}));
    QVERIFY2(first.exitCode == 0, qPrintable(first.err + first.out));
    QVERIFY2(first.out.contains("stopped after step 6"), qPrintable(first.out));
    QVERIFY(QFile::exists(run + "/checkpoints/step-0000006.h5"));
    QVERIFY(!QFile::exists(run + "/checkpoints/step-0000012.h5"));
    const auto second = tests::runCli(trainArgs(run, launch));
    QVERIFY2(second.exitCode == 0, qPrintable(second.err + second.out));
    int compared = 0;
    const double difference =
        largestDifference(path("two/checkpoints/step-0000012.h5").toStdString(),
                          (run + "/checkpoints/step-0000012.h5").toStdString(), &compared);
    qInfo("resumed against uninterrupted: %d tensors, largest difference %g", compared, difference);
    QVERIFY(compared > 10);
    QCOMPARE(difference, 0.0);
  }

  void aStopSentToTheLauncherAloneStopsEveryRank() {
    // The app's Stop and `kill PID` signal the launcher only (not the workers' group).
    const QString run = path("stopped");
    QProcess launcher;
    qint64 workers[2] = {};
    startLongRunUntilItsFirstCheckpoint(launcher, run, workers);
    if (QTest::currentTestFailed()) return;
    launcher.terminate();  // SIGTERM to the launcher's pid alone
    QVERIFY(launcher.waitForFinished(60000));
    QCOMPARE(launcher.exitCode(), 130);
    for (const qint64 pid : workers) QVERIFY(!QFile::exists(QStringLiteral("/proc/%1").arg(pid)));
    // Every rank stopped after the same step, and rank 0 wrote its checkpoint there.
    const auto kept = core::CheckpointStore(run.toStdString(), 2, true).latest();
    QVERIFY(kept.has_value());
    QVERIFY2(kept->step > 20 && kept->step < 400, qPrintable(QString::number(kept->step)));
  }

  void workersOfAKilledLauncherStop() {
    const QString run = path("orphaned");
    QProcess launcher;
    qint64 workers[2] = {};
    startLongRunUntilItsFirstCheckpoint(launcher, run, workers);
    if (QTest::currentTestFailed()) return;
    launcher.kill();  // SIGKILL: it cannot pass anything on
    QVERIFY(launcher.waitForFinished(10000));
    // A worker gone, or a zombie nobody reaped yet, no longer trains.
    const auto ended = [](qint64 pid) {
      QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
      if (!stat.open(QIODevice::ReadOnly)) return true;
      const QList<QByteArray> fields = stat.readAll().split(' ');
      return fields.size() > 2 && fields[2] == "Z";
    };
    QTRY_VERIFY_WITH_TIMEOUT(ended(workers[0]) && ended(workers[1]), 30000);
    QVERIFY(core::CheckpointStore(run.toStdString(), 2, true).latest().has_value());
  }

  void underDebiansTorchrun() {
    // torchrun --no-python starts the binary unchanged; the workers join the agent's store.
    if (tests::runProcess(tests::kPython, {"-c", "import torch.distributed.run"}).exitCode != 0)
      QSKIP("python3-torch (Debian's torchrun) is not installed");
    QVERIFY(QFile::exists(path("two/checkpoints/step-0000012.h5")));
    const QString run = path("torchrun");
    // --redirects 1 --tee 1: Debian 12's torchrun (1.13 on Python 3.11) fails with its
    // default "0" for both (an IntFlag zero that 3.11 does not iterate); docs/distributed.md.
    const auto result = tests::runProcess(
        tests::kPython,
        QStringList{"-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port",
                    QString::number(freePort()), "--redirects", "1", "--tee", "1", "--log_dir",
                    path("torchrun-logs"), "--no_python", tests::kCli} +
            trainArgs(run),
        180000);
    QVERIFY2(result.exitCode == 0, qPrintable(result.err + result.out));
    QVERIFY2((result.out + result.err).contains("data-parallel over 2 processes"),
             qPrintable(result.out + result.err));
    int compared = 0;
    const double difference =
        largestDifference(path("two/checkpoints/step-0000012.h5").toStdString(),
                          (run + "/checkpoints/step-0000012.h5").toStdString(), &compared);
    qInfo("torchrun against attnlab-cli's launcher: %d tensors, largest difference %g", compared,
          difference);
    QCOMPARE(difference, 0.0);
  }

  void badLaunchesAreRefusedClearly() {
    // A worker whose master nobody serves: address, port and timeout named; nothing written.
    const int port = freePort();
    QProcess worker;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("WORLD_SIZE", "2");
    env.insert("RANK", "1");
    env.insert("MASTER_ADDR", "127.0.0.1");
    env.insert("MASTER_PORT", QString::number(port));
    worker.setProcessEnvironment(env);
    worker.start(tests::kCli, trainArgs(path("orphan"), {"--dist-timeout", "2"}));
    QVERIFY(worker.waitForFinished(60000));
    QCOMPARE(worker.exitCode(), 1);
    const QString err = QString::fromUtf8(worker.readAllStandardError());
    QVERIFY2(err.contains("127.0.0.1:" + QString::number(port)) && err.contains("2.0 s"),
             qPrintable(err));
    QVERIFY(!QFile::exists(path("orphan")));

    // The master port is taken: rank 0 says so.
    Listener squatter;
    QVERIFY(squatter.port > 0);
    const auto busy = tests::runCli(
        trainArgs(path("busy"), {"--nproc-per-node", "2", "--master-port",
                                 QString::number(squatter.port), "--dist-timeout", "5"}));
    QCOMPARE(busy.exitCode, 1);
    QVERIFY2((busy.out + busy.err).contains("port in use"), qPrintable(busy.out + busy.err));

    // Rank 0 fails on its own (a corpus that is not there) while rank 1 waits for it: rank
    // 1's lost-peer error may end first, but the launcher names rank 0 and its reason.
    const auto missing = tests::runCli(trainArgs(
        path("missing"), {"--nproc-per-node", "2", "--master-port", QString::number(freePort()),
                          "--set", "corpus.paths=[\"/nonexistent/corpus.txt\"]"}));
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(
        missing.err.contains("rank 0 exited") && missing.err.contains("/nonexistent/corpus.txt"),
        qPrintable(missing.err));

    // Under torchrun's environment, the launcher's flags contradict it.
    QProcess nested;
    nested.setProcessEnvironment(env);
    nested.start(tests::kCli, trainArgs(path("nested"), {"--nproc-per-node", "2"}));
    QVERIFY(nested.waitForFinished(60000));
    QCOMPARE(nested.exitCode(), 1);
    QVERIFY(QString::fromUtf8(nested.readAllStandardError()).contains("already a worker"));
  }
};

QTEST_GUILESS_MAIN(TestCliDistributed)
#include "test_cli_distributed.moc"
