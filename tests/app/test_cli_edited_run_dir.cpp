// A run directory edited between two `attnlab-cli train` sessions: each edit is refused, or
// repaired, with a message that names what differs; never a crash and never a silent mix.
// - the config changed so shapes differ: refused, naming the setting and the tensor;
// - the tokenizer replaced by another one: refused, naming both fingerprints (the rows of
//   the embeddings would mean other pieces);
// - the token store damaged: rebuilt, said so, and the run ends bitwise where an untouched
//   one ends;
// - the newest checkpoint truncated: passed over with a note, the run resumes from the one
//   before and ends bitwise where an untouched one ends.
#include "tests/support/checkpoint_equality.h"
#include "tests/support/cli_process.h"
#include "tests/support/tiny_run_setup.h"

#include "core/config/config_loader.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace attnlab;
namespace fs = std::filesystem;

class TestCliEditedRunDir : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  core::RunConfig m_config;

  QString path(const QString& name) const { return m_dir.filePath(name); }

  /// Writes the config (with `edit` applied) beside the runs and trains `run` with it.
  tests::ProcessResult train(const QString& run, const core::RunConfig& config) {
    const QString file = path("config-" + QFileInfo(run).fileName() + ".toml");
    std::ofstream(file.toStdString()) << core::toToml(config);
    return tests::runCli({"train", "--config", file, "--run-dir", run, "--plain"});
  }

  /// A copy of the finished reference run, to edit.
  QString copyOfReference(const QString& name) {
    const QString run = path(name);
    fs::copy(path("reference").toStdString(), run.toStdString(), fs::copy_options::recursive);
    return run;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_config = tests::prepareTinyRun(m_dir.path().toStdString());
    m_config.schedule.steps = 8;
    m_config.train.checkpointEvery = 4;
    const auto reference = train(path("reference"), m_config);
    QVERIFY2(reference.exitCode == 0, qPrintable(reference.err + reference.out));
  }

  void shapesThatDifferAreRefused() {
    const QString run = copyOfReference("wider");
    core::RunConfig wider = m_config;
    wider.model.hiddenSize = 64;
    wider.schedule.steps = 12;
    const auto result = train(run, wider);
    QCOMPARE(result.exitCode, 1);
    QVERIFY2(result.err.contains("model.hidden_size") && result.err.contains("different shape"),
             qPrintable(result.err));
  }

  void anotherTokenizerIsRefused() {
    const QString run = copyOfReference("retokenized");
    // Another tokenizer in the configured place: the run copies it in, and its fingerprint
    // is not the checkpoint's.
    core::TokenizerTrainOptions t;
    t.inputs = {path("corpus.txt").toStdString()};
    t.modelPrefix = path("other").toStdString();
    t.vocabSize = 45;
    try {
      core::SentencePieceTokenizer::train(t);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    core::RunConfig other = m_config;
    other.tokenizer.model = path("other.model").toStdString();
    other.schedule.steps = 12;
    const auto result = train(run, other);
    QCOMPARE(result.exitCode, 1);
    QVERIFY2(result.err.contains("another tokenizer") && result.err.contains("fingerprint"),
             qPrintable(result.err));
  }

  void aDamagedTokenStoreIsRebuilt() {
    // Stopped after step 4 (its step-8 checkpoint removed), the store truncated, resumed.
    const QString run = copyOfReference("store");
    QVERIFY(QFile::remove(run + "/checkpoints/step-0000008.h5"));
    QFile store(run + "/cache/tokens/train-00000.bin");
    QVERIFY(store.exists());
    QVERIFY(store.resize(store.size() / 2));
    const auto result = train(run, m_config);
    QVERIFY2(result.exitCode == 0, qPrintable(result.err + result.out));
    QVERIFY2(result.out.contains("token store was rebuilt"), qPrintable(result.out));
    tests::compareLatestCheckpoints(path("reference").toStdString(), run.toStdString(), 8);
  }

  void aTruncatedCheckpointIsPassedOver() {
    const QString run = copyOfReference("truncated");
    QFile newest(run + "/checkpoints/step-0000008.h5");
    QVERIFY(newest.resize(newest.size() / 3));
    const auto result = train(run, m_config);
    QVERIFY2(result.exitCode == 0, qPrintable(result.err + result.out));
    QVERIFY2(result.out.contains("ignoring a checkpoint that cannot be read") &&
                 result.out.contains("step-0000008.h5"),
             qPrintable(result.out));
    QVERIFY2(result.out.contains("resuming from") && result.out.contains("step-0000004.h5"),
             qPrintable(result.out));
    tests::compareLatestCheckpoints(path("reference").toStdString(), run.toStdString(), 8);
  }
};

QTEST_GUILESS_MAIN(TestCliEditedRunDir)
#include "test_cli_edited_run_dir.moc"
