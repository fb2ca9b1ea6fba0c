// The training loop end to end on tiny models: exact resume, non-finite stops, shape
// mismatches, the run log's contents.
#include "core/checkpoint/checkpoint_store.h"
#include "core/errors/error.h"
#include "core/runlog/run_log_reader.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "core/train/adamw.h"
#include "core/train/loss_scaler.h"
#include "core/train/trainer.h"
#include "core/train/training_state.h"
#include "tests/support/tiny_corpus.h"
#include "tests/support/tiny_run_config.h"

#include <torch/torch.h>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

using namespace attnlab::core;
namespace fs = std::filesystem;

namespace {

// Stops the run once it reports `stopAt` completed steps.
class StopAt : public TrainingObserver {
 public:
  StopAt(std::atomic<bool>& flag, std::int64_t stopAt) : m_flag(flag), m_stopAt(stopAt) {}
  void onEvent(const TrainingEvent& e) override {
    if (const auto* p = std::get_if<StepEvent>(&e)) {
      m_losses.push_back(p->loss);
      if (p->step >= m_stopAt) m_flag = true;
    }
  }
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
    // The loss scale is in every checkpoint, whatever the precision: float32 never uses
    // it, so it stays the initial 65536 with no steps counted.
    QVERIFY(torch::equal(cb.tensors.at("train/loss_scale"),
                         torch::tensor({65536.0, 0.0}, torch::kDouble)));

    // The log of the resumed run has every step once, and its events.
    RunLogReader log(runLogPath(b).string());
    const auto loss = log.scalar("train/loss");
    QCOMPARE(loss.steps, std::vector<std::int64_t>({1, 2, 3, 4, 5, 6, 7, 8}));
    QVERIFY(log.scalar("eval/loss").steps.size() >= 2);
  }

  // float16's loss scale goes out with a checkpoint and back into the step's scaler, so a
  // resumed fp16 run scales (and skips) as the uninterrupted one would.
  void lossScaleTravelsWithTheCheckpoint() {
    auto w = torch::ones({2, 2}).requires_grad_(true);
    const std::vector<std::pair<std::string, at::Tensor>> named{{"w", w}};
    AdamW optimizer(named, {});
    TrainingState state(named, optimizer, tinyConfig());
    LossScaler scaler;
    scaler.restore(1024.0, 7);
    state.attachLossScaler(scaler);
    CheckpointStore store(runDir("loss-scale"), 2, false);
    fs::create_directories(runDir("loss-scale"));
    const auto path = state.save(store, 5, std::nullopt, m_corpus, 0);
    const CheckpointData saved = CheckpointStore::load(path);
    QVERIFY(torch::equal(saved.tensors.at("train/loss_scale"),
                         torch::tensor({1024.0, 7.0}, torch::kDouble)));
    TrainingState resumed(named, optimizer, tinyConfig());
    std::string note;
    QCOMPARE(resumed.restore(saved, note), std::int64_t(5));
    LossScaler fresh;
    QCOMPARE(fresh.scale(), 65536.0);
    resumed.attachLossScaler(fresh);
    QCOMPARE(fresh.scale(), 1024.0);
    QCOMPARE(fresh.goodSteps(), 7);
  }

  // The control seam the app drives: a checkpoint on request, a pause that holds the run
  // between steps, a stop that ends the pause (and the run, with a checkpoint), and typed
  // events in the order the run produced them.
  void controlPausesCheckpointsAndStops() {
    RunConfig c = tinyConfig();
    c.train.checkpointEvery = 0;  // only the requested checkpoint and the final one
    const fs::path dir = runDir("controlled");
    TrainingControl control;
    struct Recorder : TrainingObserver {
      TrainingControl* control = nullptr;
      std::mutex mutex;
      std::condition_variable changed;
      std::vector<std::string> kinds;  // event kinds in order
      std::vector<std::int64_t> checkpointSteps;
      std::int64_t lastStep = 0;
      bool paused = false;
      void onEvent(const TrainingEvent& e) override {
        std::lock_guard<std::mutex> lock(mutex);
        if (const auto* p = std::get_if<StepEvent>(&e)) {
          kinds.push_back("step");
          lastStep = p->step;
          if (p->step == 2) control->requestCheckpoint();
          if (p->step == 5) control->setPaused(true);
        } else if (const auto* ck = std::get_if<CheckpointEvent>(&e)) {
          kinds.push_back("checkpoint");
          checkpointSteps.push_back(ck->step);
        } else if (std::holds_alternative<EvaluationEvent>(e)) {
          kinds.push_back("evaluation");
        } else if (std::holds_alternative<PhaseEvent>(e)) {
          kinds.push_back("phase");
        } else if (const auto* r = std::get_if<MilestoneEvent>(&e)) {
          kinds.push_back(runEventKindString(r->kind));
          if (r->kind == RunEventKind::Paused) paused = true;
        }
        changed.notify_all();
      }
    } recorder;
    recorder.control = &control;
    TrainingSummary summary;
    std::exception_ptr failure;
    std::thread engine([&] {
      try {
        summary = Trainer(c, dir, &recorder).run(control);
      } catch (...) {
        failure = std::current_exception();
      }
    });
    {
      std::unique_lock<std::mutex> lock(recorder.mutex);
      QVERIFY(recorder.changed.wait_for(lock, std::chrono::seconds(120),
                                        [&] { return recorder.paused || failure; }));
      // Held after step 5: the pause took effect at the next step boundary.
      QCOMPARE(recorder.lastStep, std::int64_t(5));
    }
    control.requestStop();  // ends the pause and the run
    engine.join();
    if (failure) std::rethrow_exception(failure);
    QVERIFY(summary.stopped);
    QCOMPARE(summary.finalStep, std::int64_t(5));
    QCOMPARE(recorder.checkpointSteps, std::vector<std::int64_t>({2, 5}));
    const auto& k = recorder.kinds;
    QVERIFY(std::find(k.begin(), k.end(), "phase") < std::find(k.begin(), k.end(), "start"));
    QVERIFY(std::find(k.begin(), k.end(), "start") < std::find(k.begin(), k.end(), "step"));
    QCOMPARE(std::count(k.begin(), k.end(), "step"), std::ptrdiff_t(5));
    QCOMPARE(std::count(k.begin(), k.end(), "evaluation"), std::ptrdiff_t(1));  // at step 4
    QCOMPARE(k.back(), std::string("stopped"));
    RunLogReader log(runLogPath(dir).string());
    std::vector<std::string> logged;
    for (const auto& ev : log.events()) logged.push_back(ev.kind);
    QVERIFY(std::find(logged.begin(), logged.end(), "paused") != logged.end());
    QVERIFY(std::find(logged.begin(), logged.end(), "stopped") != logged.end());
    QCOMPARE(log.scalar("train/loss").steps, std::vector<std::int64_t>({1, 2, 3, 4, 5}));
  }

  // A stop while the data is being prepared ends the run before anything of it is written:
  // no run log, no checkpoint; the same directory then trains normally.
  void stopDuringDataPreparationWritesNothing() {
    const fs::path dir = runDir("stopped-early");
    TrainingControl control;
    struct StopInPhase : TrainingObserver {
      TrainingControl* control = nullptr;
      std::vector<std::string> phases;
      void onEvent(const TrainingEvent& e) override {
        if (const auto* p = std::get_if<PhaseEvent>(&e)) {
          phases.push_back(p->phase);
          if (p->phase == "preparing data: token store") control->requestStop();
        }
      }
    } observer;
    observer.control = &control;
    const auto summary = Trainer(tinyConfig(), dir, &observer).run(control);
    QVERIFY(summary.stopped);
    QCOMPARE(summary.finalStep, std::int64_t(0));
    QVERIFY(!fs::exists(runLogPath(dir)));
    QVERIFY(!CheckpointStore(dir, 2, true).latest().has_value());
    QCOMPARE(observer.phases.back(), std::string("preparing data: token store"));
    std::atomic<bool> never{false};
    QCOMPARE(Trainer(tinyConfig(), dir).run(never).finalStep, std::int64_t(8));
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
