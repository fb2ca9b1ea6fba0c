// The training loop end to end on tiny models: exact resume, non-finite stops, shape
// mismatches, the run log's contents.
#include "core/checkpoint/checkpoint_store.h"
#include "core/errors/error.h"
#include "core/runlog/run_log_reader.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "core/train/trainer.h"
#include "tests/support/tiny_corpus.h"
#include "tests/support/tiny_run_config.h"

#include <torch/torch.h>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace attnlab::core;
namespace fs = std::filesystem;

namespace {

// Stops the run once it reports `stopAt` completed steps.
class StopAt : public TrainingObserver {
 public:
  StopAt(std::atomic<bool>& flag, std::int64_t stopAt) : m_flag(flag), m_stopAt(stopAt) {}
  void onProgress(const TrainingProgress& p) override {
    if (!p.evalLoss) m_losses.push_back(p.loss);
    if (p.step >= m_stopAt) m_flag = true;
  }
  void onMessage(const std::string&) override {}
  std::vector<double> m_losses;

 private:
  std::atomic<bool>& m_flag;
  std::int64_t m_stopAt;
};

}  // namespace

class TestTrainer : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_corpus = fs::path(m_dir.path().toStdString()) / "corpus.txt";
    attnlab::tests::writeRegularCorpus(m_corpus, 400);
    TokenizerTrainOptions t;
    t.inputs = {m_corpus};
    t.modelPrefix = fs::path(m_dir.path().toStdString()) / "tok";
    t.vocabSize = 50;
    SentencePieceTokenizer::train(t);
  }

  // A run stopped at step 3 and resumed ends bitwise identical to an uninterrupted run.
  void resumeIsBitwiseExact() {
    const fs::path a = runDir("uninterrupted");
    const fs::path b = runDir("interrupted");
    std::atomic<bool> never{false};
    Trainer(tinyConfig(), a).run(never);

    std::atomic<bool> stop{false};
    StopAt stopper(stop, 3);
    const auto first = Trainer(tinyConfig(), b, &stopper).run(stop);
    QVERIFY(first.stopped);
    QCOMPARE(first.finalStep, std::int64_t(3));
    std::atomic<bool> go{false};
    const auto second = Trainer(tinyConfig(), b).run(go);
    QCOMPARE(second.startStep, std::int64_t(3));
    QCOMPARE(second.finalStep, std::int64_t(8));

    const auto ca = CheckpointStore::load(CheckpointStore(a, 2, true).latest()->path);
    const auto cb = CheckpointStore::load(CheckpointStore(b, 2, true).latest()->path);
    QCOMPARE(ca.step, std::int64_t(8));
    QCOMPARE(cb.step, std::int64_t(8));
    QCOMPARE(ca.tensors.size(), cb.tensors.size());
    int compared = 0;
    for (const auto& [key, t] : ca.tensors) {
      QVERIFY2(cb.tensors.count(key) == 1, key.c_str());
      QVERIFY2(torch::equal(t, cb.tensors.at(key)), ("differs: " + key).c_str());
      ++compared;
    }
    QVERIFY(compared > 20);

    // The log of the resumed run has every step once, and its events.
    RunLogReader log(runLogPath(b).string());
    const auto loss = log.scalar("train/loss");
    QCOMPARE(loss.steps, std::vector<std::int64_t>({1, 2, 3, 4, 5, 6, 7, 8}));
    QVERIFY(log.scalar("eval/loss").steps.size() >= 2);
  }

  void lossFallsOnRealText() {
    RunConfig c = tinyConfig();
    c.schedule.steps = 400;
    c.train.batchSize = 16;
    c.optimizer.learningRate = 3e-3;
    c.train.evalEvery = 0;
    c.train.checkpointEvery = 0;
    std::atomic<bool> never{false};
    StopAt observer(never, 1000);
    Trainer(c, runDir("falling"), &observer).run(never);
    const auto& l = observer.m_losses;
    QVERIFY(l.size() >= 80);
    // A uniform guess over 50 pieces costs ln 50 = 3.9 nats; the text is highly regular.
    const double early = (l[0] + l[1] + l[2] + l[3] + l[4]) / 5;
    const double late =
        (l[l.size() - 1] + l[l.size() - 2] + l[l.size() - 3] + l[l.size() - 4] + l[l.size() - 5]) /
        5;
    QVERIFY2(late < early - 0.5, qPrintable(QString("loss %1 -> %2").arg(early).arg(late)));
  }

  void nonFiniteLossStopsWithStepAndQuantity() {
    RunConfig c = tinyConfig();
    c.optimizer.learningRate = 1e30;  // the first update sends weights to 1e30
    c.optimizer.clipNorm = 0.0;
    c.schedule.warmupSteps = 0;
    const fs::path dir = runDir("nonfinite");
    std::atomic<bool> never{false};
    try {
      Trainer(c, dir).run(never);
      QFAIL("a run whose loss overflows must stop");
    } catch (const attnlab::TrainingError& e) {
      const QString msg = e.what();
      QVERIFY2(
          msg.contains("step ") && (msg.contains("training loss") || msg.contains("gradient norm")),
          e.what());
    }
    RunLogReader log(runLogPath(dir).string());
    bool sawEvent = false;
    for (const auto& ev : log.events()) sawEvent |= ev.kind == "non_finite";
    QVERIFY(sawEvent);
  }

  void resumingADifferentShapeIsRefused() {
    const fs::path dir = runDir("shape");
    std::atomic<bool> never{false};
    RunConfig c = tinyConfig();
    c.schedule.steps = 2;
    Trainer(c, dir).run(never);
    c.model.ffnSize = 48;
    c.schedule.steps = 4;
    try {
      Trainer(c, dir).run(never);
      QFAIL("a checkpoint of another shape must be refused");
    } catch (const attnlab::CheckpointError& e) {
      const QString msg = e.what();
      QVERIFY2(msg.contains("different shape") && msg.contains("model.ffn_size"), e.what());
    }
  }

  void unwritableRunDirectoryIsReported() {
    std::atomic<bool> never{false};
    try {
      Trainer(tinyConfig(), "/proc/attnlab-run").run(never);
      QFAIL("a run directory under /proc cannot work");
    } catch (const attnlab::Error& e) {
      QVERIFY2(QString(e.what()).contains("/proc/attnlab-run"), e.what());
    }
  }

 private:
  RunConfig tinyConfig() const {
    return attnlab::tests::tinyRunConfig(m_corpus,
                                         fs::path(m_dir.path().toStdString()) / "tok.model");
  }
  fs::path runDir(const char* name) const { return fs::path(m_dir.path().toStdString()) / name; }

  QTemporaryDir m_dir;
  fs::path m_corpus;
};

QTEST_APPLESS_MAIN(TestTrainer)
#include "test_trainer.moc"
