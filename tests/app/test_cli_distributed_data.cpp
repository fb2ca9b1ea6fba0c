// attnlab-cli train --nproc-per-node 2 on a text corpus whose tokenizer the run trains itself
// (4 MB of generated sentences in 0.25 MB shards, no tokenizer.model), as a person runs it:
// - it ends with the parameters and AdamW moments of one process with twice the
//   accumulation (bitwise), from the same tokenizer and the same token store, file by file;
// - the data is prepared once, by rank 0: it reports the phases and describes the data once;
//   rank 1 starts no phase of its own (a line of its about preparation can only be
//   "waiting for rank 0" or rank 0's phase marked "(rank 0)"; today the other ranks print
//   nothing), and it reads less than the corpus's size where rank 0 reads the corpus at
//   least twice (rchar of /proc/<pid>/io, sampled while the workers run).
#include "core/config/config_loader.h"
#include "tests/support/cli_process.h"
#include "tests/support/distributed_workers.h"
#include "tests/support/listening_socket.h"
#include "tests/support/same_files.h"
#include "tests/support/tiny_run_config.h"
#include "tests/support/varied_corpus.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kCorpusBytes = 4u << 20;

/// Bytes `pid` has read through read(2) and the like so far (rchar), or -1.
qint64 bytesRead(qint64 pid) {
  QFile io(QStringLiteral("/proc/%1/io").arg(pid));
  if (!io.open(QIODevice::ReadOnly)) return -1;
  const auto match = QRegularExpression(R"(rchar: (\d+))").match(QString::fromUtf8(io.readAll()));
  return match.hasMatch() ? match.captured(1).toLongLong() : -1;
}

/// The lines of `output` the launcher prefixed with "[rank `rank`] ".
QStringList linesOfRank(const QString& output, int rank) {
  const QString prefix = QStringLiteral("[rank %1] ").arg(rank);
  QStringList lines;
  for (const QString& line : output.split('\n'))
    if (line.startsWith(prefix)) lines << line.mid(prefix.size());
  return lines;
}

}  // namespace

class TestCliDistributedData : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_config;

  QString path(const QString& name) const { return m_dir.filePath(name); }
  QStringList trainArgs(const QString& run, const QStringList& extra = {}) const {
    return QStringList{"train", "--config", m_config, "--run-dir", run, "--plain"} + extra;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const fs::path dir = m_dir.path().toStdString();
    tests::writeVariedCorpus(dir / "corpus.txt", kCorpusBytes);
    core::RunConfig config = tests::tinyRunConfig(dir / "corpus.txt", {});
    config.tokenizer.model.clear();  // the run trains it
    config.tokenizer.vocabSize = 50;
    config.data.shardMb = 0.25;
    config.schedule.steps = 12;
    config.train.checkpointEvery = 4;
    config.train.evalEvery = 4;
    config.train.threads = 1;
    m_config = path("text.toml");
    std::ofstream(m_config.toStdString()) << core::toToml(config);
  }

  void twoWorkersPrepareATextCorpusOnceAndEqualOneProcess() {
    // Each run is "run" in a folder of its own: SentencePiece records its training paths in
    // the model, so the two tokenizers (and the stores, which carry its fingerprint) can be
    // equal byte for byte only when those paths are.
    QVERIFY(QDir(m_dir.path()).mkpath("two") && QDir(m_dir.path()).mkpath("one"));
    const QString two = path("two/run");
    QProcess launcher;
    launcher.setWorkingDirectory(path("two"));
    QElapsedTimer timer;
    timer.start();
    launcher.start(tests::kCli, trainArgs("run", {"--nproc-per-node", "2", "--master-port",
                                                  QString::number(tests::freePort())}));
    QVERIFY(launcher.waitForStarted());
    // Each worker's bytes read, sampled until it ends (the last sample counts).
    qint64 workers[2] = {-1, -1};
    qint64 read[2] = {-1, -1};
    while (launcher.state() != QProcess::NotRunning && timer.elapsed() < 300000) {
      launcher.waitForFinished(20);
      for (int rank = 0; rank < 2; ++rank) {
        if (workers[rank] <= 0) workers[rank] = tests::workerPid(launcher.processId(), rank);
        if (workers[rank] <= 0) continue;
        const qint64 bytes = bytesRead(workers[rank]);
        if (bytes >= 0) read[rank] = bytes;
      }
    }
    if (launcher.state() != QProcess::NotRunning) {
      launcher.kill();
      launcher.waitForFinished();
      QFAIL("the 2-worker run did not end within 300 s");
    }
    const QString out = QString::fromUtf8(launcher.readAllStandardOutput());
    const QString err = QString::fromUtf8(launcher.readAllStandardError());
    qInfo("2 workers: %lld ms; bytes read: rank 0 %lld, rank 1 %lld (corpus %llu)",
          static_cast<long long>(timer.elapsed()), static_cast<long long>(read[0]),
          static_cast<long long>(read[1]), static_cast<unsigned long long>(kCorpusBytes));
    QVERIFY2(launcher.exitStatus() == QProcess::NormalExit && launcher.exitCode() == 0,
             qPrintable(err + out));
    QVERIFY2(out.contains("[rank 0] done: 12 steps"), qPrintable(out));
    QVERIFY2(out.contains("data-parallel over 2 processes"), qPrintable(out));

    // Rank 0 prepared (its phases reported; matched by name, their lines' details aside),
    // and the data was described once, with the tokenizer the run trained.
    const QStringList rank0 = linesOfRank(out, 0);
    for (const char* phase : {"corpus", "tokenizer", "token store"}) {
      const QString name = QStringLiteral("preparing data: %1").arg(phase);
      QVERIFY2(!rank0.filter(QRegularExpression('^' + QRegularExpression::escape(name) + "\\b"))
                    .isEmpty(),
               qPrintable(name + "\n" + out));
    }
    QVERIFY2(out.count(QRegularExpression(R"(\] corpus: .*tokenizer 50 pieces \(trained\))")) == 1,
             qPrintable(out));
    // Rank 1 has no phase of its own: it waits for rank 0 and opens rank 0's store.
    for (const QString& line : linesOfRank(out, 1)) {
      if (!line.startsWith("preparing data: ")) continue;
      QVERIFY2(line.contains("waiting for rank 0") || line.contains("(rank 0)"),
               qPrintable(line + "\n" + out));
    }
    // ... and made no corpus pass: rank 0 read the corpus at least twice (the corpus phase,
    // the tokenizer's training, the encoding); rank 1 not once.
    QVERIFY2(read[0] > qint64(2 * kCorpusBytes), qPrintable(QString::number(read[0])));
    QVERIFY2(read[1] >= 0 && read[1] < qint64(kCorpusBytes), qPrintable(QString::number(read[1])));

    // One process with twice the accumulation ends the same, from the same tokenizer and the
    // same store.
    timer.restart();
    QProcess single;
    single.setWorkingDirectory(path("one"));
    single.start(tests::kCli, trainArgs("run", {"--set", "train.gradient_accumulation=2"}));
    QVERIFY(single.waitForFinished(300000));
    QVERIFY2(single.exitStatus() == QProcess::NormalExit && single.exitCode() == 0,
             qPrintable(single.readAllStandardError() + single.readAllStandardOutput()));
    qInfo("1 process: %lld ms", static_cast<long long>(timer.elapsed()));
    const QString one = path("one/run");
    QFile tokenizerOne(one + "/tokenizer.model");
    QFile tokenizerTwo(two + "/tokenizer.model");
    QVERIFY(tokenizerOne.open(QIODevice::ReadOnly) && tokenizerTwo.open(QIODevice::ReadOnly));
    QVERIFY(tokenizerOne.readAll() == tokenizerTwo.readAll());
    int files = 0;
    const QString storeDifference =
        tests::folderDifference(one + "/cache/tokens", two + "/cache/tokens", &files);
    QVERIFY2(storeDifference.isEmpty(), qPrintable(storeDifference));
    QVERIFY(files > 2 * 10);  // index.json and over 10 shard pairs
    int compared = 0;
    const double difference =
        tests::largestDifference((one + "/checkpoints/step-0000012.h5").toStdString(),
                                 (two + "/checkpoints/step-0000012.h5").toStdString(), &compared);
    qInfo("%d tensors (parameters and AdamW moments); largest difference %g", compared, difference);
    QVERIFY(compared > 10);
    QCOMPARE(difference, 0.0);
  }
};

QTEST_GUILESS_MAIN(TestCliDistributedData)
#include "test_cli_distributed_data.moc"
