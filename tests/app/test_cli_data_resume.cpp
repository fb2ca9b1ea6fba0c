// attnlab-cli train killed with SIGKILL while it encodes the token store, then started again
// by the same command, as a person would after a crash (real processes): a text corpus of
// 16 MB in shards of 0.05 MB (over 300), an existing tokenizer, one thread.
// - the kill leaves finished shards and no index.json (the store is unfinished), and perhaps
//   a half-written shard under its temporary name (planted when the kill missed one);
// - the restart keeps every finished shard pair ("K kept from an interrupted build", K the
//   validation shards the kill left), trains to the end, and leaves no temporary file;
// - its store equals, file by file and byte by byte (index.json included), the store of an
//   uninterrupted run of the same configuration in another run directory.
#include "core/config/config_loader.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "tests/support/cli_process.h"
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

// Big enough that one thread encodes it for seconds (about 4 MB/s with the 50-piece
// tokenizer) while the test waits for 5 of its 300-odd shards: make it bigger, rather than
// loosening the test, if the first process ever finishes before the kill.
constexpr std::uint64_t kCorpusBytes = 16u << 20;
constexpr double kShardMb = 0.05;
constexpr int kShardsBeforeTheKill = 5;

int countFiles(const QString& dir, const QString& pattern) {
  return static_cast<int>(QDir(dir).entryList({pattern}, QDir::Files).size());
}

}  // namespace

class TestCliDataResume : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_config;

  QString path(const QString& name) const { return m_dir.filePath(name); }
  QStringList trainArgs(const QString& run) const {
    return {"train", "--config", m_config, "--run-dir", run, "--plain"};
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const fs::path dir = m_dir.path().toStdString();
    tests::writeVariedCorpus(dir / "corpus.txt", kCorpusBytes);
    // The tokenizer exists before the runs (the tiny configuration's 50 pieces), trained on
    // the corpus's first 200 kB (the same generator).
    tests::writeVariedCorpus(dir / "sample.txt", 200000);
    core::TokenizerTrainOptions t;
    t.inputs = {dir / "sample.txt"};
    t.modelPrefix = dir / "tok";
    t.vocabSize = 50;
    core::SentencePieceTokenizer::train(t);
    core::RunConfig config = tests::tinyRunConfig(dir / "corpus.txt", dir / "tok.model");
    config.data.shardMb = kShardMb;
    config.schedule.steps = 4;
    config.train.threads = 1;  // one encoding thread: slow enough to interrupt
    m_config = path("data-resume.toml");
    std::ofstream(m_config.toStdString()) << core::toToml(config);
  }

  void aKilledPreparationResumesWithItsFinishedShards() {
    const QString run = path("killed");
    const QString tokens = run + "/cache/tokens";
    QProcess first;
    first.setProcessChannelMode(QProcess::MergedChannels);
    QElapsedTimer timer;
    timer.start();
    first.start(tests::kCli, trainArgs(run));
    QVERIFY(first.waitForStarted());
    const qint64 firstPid = first.processId();
    QTRY_VERIFY_WITH_TIMEOUT(countFiles(tokens, "train-*.bin") >= kShardsBeforeTheKill ||
                                 QFile::exists(tokens + "/index.json") ||
                                 first.state() == QProcess::NotRunning,
                             60000);
    first.kill();  // SIGKILL: no handler runs, nothing is tidied
    QVERIFY(first.waitForFinished(30000));
    const QString firstOutput = QString::fromUtf8(first.readAll());
    QVERIFY2(!QFile::exists(tokens + "/index.json"),
             qPrintable("the first process finished the store before the kill (make the corpus "
                        "bigger):\n" +
                        firstOutput));
    QCOMPARE(first.exitStatus(), QProcess::CrashExit);
    const int trainShards = countFiles(tokens, "train-*.bin");
    const int finishedPairs = countFiles(tokens, "validation-*.bin");  // written second
    qInfo("killed after %lld ms with %d train and %d validation shards (%d temporaries)",
          static_cast<long long>(timer.elapsed()), trainShards, finishedPairs,
          countFiles(tokens, "*.tmp-*"));
    QVERIFY(trainShards >= kShardsBeforeTheKill);
    QVERIFY(finishedPairs > 0);
    // What a kill in the middle of a write leaves, when this one came between two files:
    // the next shard half written under the dead process's temporary name.
    if (countFiles(tokens, "*.tmp-*") == 0) {
      QFile shard(tokens + QStringLiteral("/train-%1.bin").arg(trainShards - 1, 5, 10, QChar('0')));
      QVERIFY(shard.open(QIODevice::ReadOnly));
      QVERIFY(tests::writeBytes(tokens + QStringLiteral("/train-%1.bin.tmp-%2")
                                             .arg(trainShards, 5, 10, QChar('0'))
                                             .arg(firstPid),
                                shard.read(shard.size() / 2)));
    }

    // The same command again, to the end.
    timer.restart();
    const auto second = tests::runCli(trainArgs(run));
    const qint64 secondMs = timer.elapsed();
    QVERIFY2(second.exitCode == 0, qPrintable(second.err + second.out));
    QVERIFY2(second.out.contains("done: 4 steps"), qPrintable(second.out));
    const auto kept =
        QRegularExpression(R"(in (\d+) shard\(s\) \((\d+) kept from an interrupted build\))")
            .match(second.out);
    QVERIFY2(kept.hasMatch(), qPrintable(second.out));
    const int shards = kept.captured(1).toInt();
    qInfo("the restart (%lld ms) kept %s of %d shards", static_cast<long long>(secondMs),
          qPrintable(kept.captured(2)), shards);
    // Every pair the kill left finished is kept (one encoding thread: at most the pair it
    // was writing is incomplete, and that one is encoded again).
    QCOMPARE(kept.captured(2).toInt(), finishedPairs);
    QVERIFY(shards > finishedPairs);
    QCOMPARE(countFiles(tokens, "train-*.bin"), shards);
    QCOMPARE(countFiles(tokens, "*.tmp-*"), 0);
    QCOMPARE(countFiles(run + "/cache", "*.tmp-*"), 0);

    // An uninterrupted preparation of the same configuration writes the same store.
    timer.restart();
    const auto clean = tests::runCli(trainArgs(path("clean")));
    QVERIFY2(clean.exitCode == 0, qPrintable(clean.err + clean.out));
    QVERIFY2(!clean.out.contains("kept from an interrupted build"), qPrintable(clean.out));
    int compared = 0;
    const QString difference =
        tests::folderDifference(tokens, path("clean/cache/tokens"), &compared);
    qInfo("the uninterrupted run (%lld ms); %d files compared",
          static_cast<long long>(timer.elapsed()), compared);
    QVERIFY2(difference.isEmpty(), qPrintable(difference));
    QCOMPARE(compared, 2 * shards + 1);  // the shard pairs and index.json
  }
};

QTEST_GUILESS_MAIN(TestCliDataResume)
#include "test_cli_data_resume.moc"
