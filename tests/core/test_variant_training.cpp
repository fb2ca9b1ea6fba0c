// Every attention variant trains end to end on a tiny model and logs what it should;
// composed variants resume exactly; impossible combinations are refused with a reason;
// `inspect` writes the same quantities for any text.
#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/inspect/attention_inspector.h"
#include "core/runlog/run_log_reader.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "core/train/trainer.h"
#include "tests/support/tiny_corpus.h"
#include "tests/support/tiny_run_config.h"

#include <torch/torch.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <functional>
#include <set>

using namespace attnlab::core;
namespace fs = std::filesystem;

class TestVariantTraining : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_corpus = fs::path(m_dir.path().toStdString()) / "corpus.txt";
    attnlab::tests::writeRegularCorpus(m_corpus, 300);
    TokenizerTrainOptions t;
    t.inputs = {m_corpus};
    t.modelPrefix = fs::path(m_dir.path().toStdString()) / "tok";
    t.vocabSize = 50;
    SentencePieceTokenizer::train(t);
  }

  void eachVariantTrainsAndLogs_data() {
    QTest::addColumn<QStringList>("sets");
    QTest::addColumn<QStringList>("scalars");  // must be in the log
    QTest::addColumn<QStringList>("series");
    QTest::newRow("guidance") << QStringList{"attention.guidance.enabled=true",
                                             "attention.guidance.head_fraction=1.0"}
                              << QStringList{"guidance/loss", "guidance/weight", "guidance/next",
                                             "guidance/prev", "train/total_loss"}
                              << QStringList{};
    QTest::newRow("guidance (code choices)")
        << QStringList{"attention.guidance.enabled=true", "attention.guidance.loss=\"mean\"",
                       "attention.guidance.schedule=\"hold\"",
                       "attention.guidance.edge_rows=\"zero\"",
                       "attention.guidance.heads=[\"delim\",\"period\"]"}
        << QStringList{"guidance/delim", "guidance/period"} << QStringList{};
    QTest::newRow("dufter relative + temperature + conv2d")
        << QStringList{"model.position_embeddings=false", "attention.position.mode=\"both\"",
                       "attention.temperature=true", "attention.conv=\"2d\""}
        << QStringList{} << QStringList{"temperature/q", "temperature/k", "temperature/v"};
    QTest::newRow("conv1d") << QStringList{"attention.conv=\"1d\""} << QStringList{}
                            << QStringList{};
    QTest::newRow("realformer mean, pre-LN")
        << QStringList{"attention.residual=\"mean\"", "model.norm=\"pre\""} << QStringList{}
        << QStringList{};
    QTest::newRow("asa") << QStringList{"attention.asa.enabled=true"}
                         << QStringList{"asa/token_kl", "asa/sentence_kl", "asa/penalty"}
                         << QStringList{"asa/mask_proportion", "snapshots/asa_masks"};
    QTest::newRow("asa (official conventions)")
        << QStringList{"attention.asa.enabled=true", "attention.asa.kl=\"symmetric\"",
                       "attention.asa.penalty=\"tau_squared\"",
                       "attention.asa.kl_reduction=\"batchmean\""}
        << QStringList{"asa/token_kl", "asa/sentence_kl", "asa/penalty"}
        << QStringList{"asa/mask_proportion"};
    QTest::newRow("sesame") << QStringList{"attention.blur.target=\"context\"",
                                           "attention.squeeze.enabled=true"}
                            << QStringList{} << QStringList{"squeeze/weights"};
    QTest::newRow("output gate element + qk-norm layer, pre-LN")
        << QStringList{"attention.output_gate=\"element\"", "attention.qk_norm=\"layer\"",
                       "model.norm=\"pre\""}
        << QStringList{} << QStringList{};
    QTest::newRow("softmax1 (learned), pre-LN")
        << QStringList{"attention.normalizer=\"softmax1\"", "model.norm=\"pre\""} << QStringList{}
        << QStringList{"normalizer/sink_logit"};
    QTest::newRow("softpick") << QStringList{"attention.normalizer=\"softpick\""} << QStringList{}
                              << QStringList{};
    QTest::newRow("sigmoid + qk-norm rms")
        << QStringList{"attention.normalizer=\"sigmoid\"", "attention.qk_norm=\"rms\""}
        << QStringList{} << QStringList{};
    QTest::newRow("clipped") << QStringList{"attention.normalizer=\"clipped\""} << QStringList{}
                             << QStringList{};
    QTest::newRow("differential + output gate head")
        << QStringList{"attention.differential=true", "attention.output_gate=\"head\""}
        << QStringList{} << QStringList{"differential/lambda", "gate/mean"};
    QTest::newRow("realformer + guidance + asa")
        << QStringList{"attention.residual=\"sum\"", "attention.guidance.enabled=true",
                       "attention.asa.enabled=true"}
        << QStringList{"guidance/loss", "asa/token_kl"} << QStringList{"asa/mask_proportion"};
  }
  void eachVariantTrainsAndLogs() {
    QFETCH(QStringList, sets);
    QFETCH(QStringList, scalars);
    QFETCH(QStringList, series);
    RunConfig c = tinyConfig();
    for (const QString& s : sets) applyOverride(c, s.toStdString());
    validateRunConfig(c);
    const fs::path dir = runDir(QTest::currentDataTag());
    std::atomic<bool> never{false};
    const auto summary = Trainer(c, dir).run(never);
    QCOMPARE(summary.finalStep, std::int64_t(6));
    QVERIFY(summary.lastEvalLoss && std::isfinite(*summary.lastEvalLoss));

    RunLogReader log(runLogPath(dir).string());
    const auto names = log.scalarNames();
    for (const QString& s : scalars) {
      QVERIFY2(std::find(names.begin(), names.end(), s.toStdString()) != names.end(),
               qPrintable(s));
      const auto values = log.scalar(s.toStdString());
      QCOMPARE(values.steps.size(), std::size_t(6));
      for (double v : values.values) QVERIFY2(std::isfinite(v), qPrintable(s));
    }
    for (const QString& s : series) {
      const auto data = log.series(s.toStdString());
      QVERIFY2(!data.steps.empty(), qPrintable(s));
      for (float v : data.values) QVERIFY2(std::isfinite(v), qPrintable(s));
    }
    if (series.contains("asa/mask_proportion")) {
      const auto p = log.series("asa/mask_proportion");
      QCOMPARE(p.innerShape, std::vector<std::int64_t>({2}));
      for (float v : p.values) QVERIFY(v >= 0.0f && v <= 1.0f);
    }
    if (series.contains("squeeze/weights")) {
      for (float v : log.series("squeeze/weights").values) QVERIFY(v > 0.0f && v < 1.0f);
    }
    // Snapshots of the probe batch: probabilities [L, B, H, T, T] whose rows sum to 1.
    const auto snap = log.series("snapshots/probabilities");
    QVERIFY(!snap.steps.empty());
    QCOMPARE(snap.steps.front(), std::int64_t(0));
    QCOMPARE(snap.innerShape.size(), std::size_t(5));
    QCOMPARE(snap.innerShape[0], std::int64_t(2));
    QCOMPARE(snap.innerShape[2], std::int64_t(2));
    const auto tokens = log.probeTokens();
    QCOMPARE(std::int64_t(tokens.size()), snap.innerShape[1]);
    QCOMPARE(tokens.front().front(), std::string("<s>"));
    // The choice a run made is recorded.
    bool sawVariants = false;
    for (const auto& ev : log.events()) sawVariants |= ev.kind == "variants";
    QVERIFY(sawVariants);
  }

  // Composed mechanisms resume exactly: RealFormer + guidance + ASA (two passes, adversaries,
  // gradient reversal) with the output gate and QK-norm; differential attention with ASA and
  // the gate; softmax1's learned sinks with RealFormer and SesameBERT.
  void composedVariantsResumeExactly_data() {
    QTest::addColumn<QStringList>("sets");
    QTest::addColumn<QStringList>("keys");  // parameters that must be in the checkpoint
    QTest::newRow("realformer + guidance + asa + gate + qk-norm")
        << QStringList{"attention.output_gate=\"head\"", "attention.qk_norm=\"rms\"",
                       "attention.residual=\"sum\"",     "attention.guidance.enabled=true",
                       "attention.asa.enabled=true",     "attention.temperature=true"}
        << QStringList{"adversaries.", "attention.gate.weight", "attention.k_norm.weight"};
    QTest::newRow("differential + asa + gate")
        << QStringList{"attention.differential=true", "attention.asa.enabled=true",
                       "attention.output_gate=\"element\""}
        << QStringList{"attention.differential.lambda_q1", "attention.differential.norm.weight"};
    QTest::newRow("softmax1 + realformer + sesame")
        << QStringList{"attention.normalizer=\"softmax1\"", "attention.residual=\"mean\"",
                       "attention.blur.target=\"context\"", "attention.squeeze.enabled=true"}
        << QStringList{"attention.normalizer.sink_logit"};
  }
  void composedVariantsResumeExactly() {
    QFETCH(QStringList, sets);
    QFETCH(QStringList, keys);
    RunConfig c = tinyConfig();
    for (const QString& s : sets) applyOverride(c, s.toStdString());
    validateRunConfig(c);
    c.train.checkpointEvery = 3;
    const QString tag = QString(QTest::currentDataTag()).replace(' ', '_').replace('+', 'p');
    const fs::path a = runDir(qPrintable(tag + "-a")), b = runDir(qPrintable(tag + "-b"));
    std::atomic<bool> never{false};
    Trainer(c, a).run(never);
    std::atomic<bool> stop{false};
    struct StopAt3 : TrainingObserver {
      std::atomic<bool>* flag;
      void onEvent(const TrainingEvent& e) override {
        const auto* p = std::get_if<StepEvent>(&e);
        if (p != nullptr && p->step >= 3) *flag = true;
      }
    } observer;
    observer.flag = &stop;
    QVERIFY(Trainer(c, b, &observer).run(stop).stopped);
    Trainer(c, b).run(never);
    const auto ca = CheckpointStore::load(CheckpointStore(a, 2, true).latest()->path);
    const auto cb = CheckpointStore::load(CheckpointStore(b, 2, true).latest()->path);
    QCOMPARE(ca.step, std::int64_t(6));
    QCOMPARE(cb.step, std::int64_t(6));
    std::set<QString> seen;
    for (const auto& [key, t] : ca.tensors) {
      for (const QString& k : keys)
        if (key.find(k.toStdString()) != std::string::npos) seen.insert(k);
      QVERIFY2(torch::equal(t, cb.tensors.at(key)), ("differs: " + key).c_str());
    }
    for (const QString& k : keys) QVERIFY2(seen.count(k) == 1, qPrintable("missing: " + k));
  }

  // Each of today's mechanisms with each seed mechanism either trains (two steps, finite
  // losses) or is refused by validateRunConfig with a message naming both keys.
  void everyPairTrainsOrIsRefused() {
    using Set = std::function<void(RunConfig&)>;
    const std::vector<std::pair<std::string, Set>> today = {
        {"attention.output_gate", [](RunConfig& c) { c.attention.outputGate = OutputGate::Head; }},
        {"attention.qk_norm", [](RunConfig& c) { c.attention.qkNorm = QkNorm::Rms; }},
        {"attention.normalizer",
         [](RunConfig& c) { c.attention.normalizer = Normalizer::Softmax1; }},
        {"attention.normalizer",
         [](RunConfig& c) { c.attention.normalizer = Normalizer::Softpick; }},
        {"attention.normalizer",
         [](RunConfig& c) { c.attention.normalizer = Normalizer::Sigmoid; }},
        {"attention.normalizer",
         [](RunConfig& c) { c.attention.normalizer = Normalizer::Clipped; }},
        {"attention.differential", [](RunConfig& c) { c.attention.differential = true; }},
    };
    const std::vector<std::pair<std::string, Set>> seeds = {
        {"attention.guidance", [](RunConfig& c) { c.attention.guidance.enabled = true; }},
        {"attention.position",
         [](RunConfig& c) {
           c.attention.position.mode = PositionMode::Relative;
           c.model.positionEmbeddings = false;
         }},
        {"attention.temperature", [](RunConfig& c) { c.attention.temperature = true; }},
        {"attention.conv", [](RunConfig& c) { c.attention.conv = ConvAttention::TwoD; }},
        {"attention.residual", [](RunConfig& c) { c.attention.residual = ResidualScores::Sum; }},
        {"attention.asa", [](RunConfig& c) { c.attention.asa.enabled = true; }},
        {"attention.blur", [](RunConfig& c) { c.attention.blur.target = BlurTarget::Context; }},
        {"attention.squeeze", [](RunConfig& c) { c.attention.squeeze.enabled = true; }},
    };
    int trained = 0, refused = 0;
    for (const auto& [newKey, setNew] : today) {
      for (const auto& [seedKey, setSeed] : seeds) {
        RunConfig c = tinyConfig();
        c.schedule.steps = 2;
        c.train.evalEvery = 2;
        setNew(c);
        setSeed(c);
        const std::string pair = newKey + " with " + seedKey;
        try {
          validateRunConfig(c);
        } catch (const attnlab::ConfigError& e) {
          const std::string what = e.what();
          QVERIFY2(
              what.find(newKey) != std::string::npos && what.find(seedKey) != std::string::npos,
              (pair + ": " + what).c_str());
          ++refused;
          continue;
        }
        std::atomic<bool> never{false};
        const auto dir = runDir(("pair-" + std::to_string(trained + refused)).c_str());
        const auto summary = Trainer(c, dir).run(never);
        QVERIFY2(
            summary.finalStep == 2 && summary.lastEvalLoss && std::isfinite(*summary.lastEvalLoss),
            pair.c_str());
        ++trained;
      }
    }
    // Guidance refuses every normalizer but softmax and differential attention; differential
    // refuses RealFormer and the convolution too.
    QCOMPARE(refused, 4 + 1 + 2);
    QCOMPARE(trained + refused, 7 * 8);
  }

  void impossibleCombinationsAreRefused() {
    auto expect = [](RunConfig c, const char* key, const char* words) {
      try {
        validateRunConfig(c);
        QFAIL(qPrintable(QString("accepted: ") + key));
      } catch (const attnlab::ConfigError& e) {
        QVERIFY2(QString(e.what()).contains(key) && QString(e.what()).contains(words), e.what());
      }
    };
    RunConfig c = tinyConfig();
    c.attention.position.mode = PositionMode::Relative;  // with position embeddings still on
    expect(c, "attention.position.mode", "position_embeddings");
    c = tinyConfig();
    c.attention.guidance.enabled = true;
    c.attention.guidance.heads = {GuidancePattern::Next};  // 2 heads in the model
    expect(c, "attention.guidance.heads", "model.heads");
    c = tinyConfig();
    c.attention.guidance.layers = "0,7";
    expect(c, "attention.guidance.layers", "does not exist");
    c = tinyConfig();
    c.attention.blur.target = BlurTarget::Context;
    c.attention.blur.window = 4;
    expect(c, "attention.blur.window", "odd");
    // The new mechanisms' refusals name both keys and why.
    c = tinyConfig();
    c.attention.guidance.enabled = true;
    c.attention.normalizer = Normalizer::Softpick;
    expect(c, "attention.normalizer = softpick", "target distribution");
    c.attention.normalizer = Normalizer::Softmax;
    c.attention.differential = true;
    expect(c, "attention.differential = true", "signed");
    c = tinyConfig();
    c.attention.differential = true;
    c.attention.normalizer = Normalizer::Sigmoid;
    expect(c, "attention.normalizer = sigmoid", "two softmax maps");
    c.attention.normalizer = Normalizer::Softmax;
    c.attention.residual = ResidualScores::Sum;
    expect(c, "attention.residual = sum", "two score maps");
    c.attention.residual = ResidualScores::None;
    c.attention.conv = ConvAttention::TwoD;
    expect(c, "attention.conv = 2d", "signed map");
  }

  void inspectWritesAttentionForAnyText() {
    RunConfig c = tinyConfig();
    c.attention.asa.enabled = true;
    c.attention.residual = ResidualScores::Sum;
    const fs::path dir = runDir("inspect");
    std::atomic<bool> never{false};
    Trainer(c, dir).run(never);
    // Building the inspector's model leaves LibTorch's global generator as it was (a run
    // training in the same process must not see it).
    torch::manual_seed(1234);
    const auto expected = torch::rand({8});
    torch::manual_seed(1234);
    AttentionInspector inspector(CheckpointStore(dir, 2, true).latest()->path);
    QVERIFY(torch::equal(torch::rand({8}), expected));
    const auto r = inspector.inspect("the cat watched the river .");
    QCOMPARE(r.pieces.front(), std::string("<s>"));
    QCOMPARE(r.pieces.back(), std::string("</s>"));
    QCOMPARE(r.probabilities.sizes().vec(),
             std::vector<std::int64_t>({2, 2, r.realTokens, r.realTokens}));
    QVERIFY((r.probabilities.sum(-1) - 1).abs().max().item<double>() < 1e-5);
    QCOMPARE(r.asaMasks.sizes().vec(), std::vector<std::int64_t>({2, r.realTokens, r.realTokens}));
    const fs::path out = dir / "inspect.h5";
    writeInspection(r, out);
    QProcess py;
    py.start(ATTNLAB_PYTHON,
             {"-c",
              "import h5py,sys\nf=h5py.File(sys.argv[1],'r')\n"
              "print(f.attrs['format'], f['probabilities'].shape, f['asa_masks'].shape, "
              "f['tokens'][0].decode())",
              QString::fromStdString(out.string())});
    QVERIFY(py.waitForFinished(60000));
    const QString printed = QString::fromUtf8(py.readAllStandardOutput()).trimmed();
    QVERIFY2(printed.startsWith("attnlab-inspect (2, 2,") && printed.endsWith("<s>"),
             qPrintable(printed + py.readAllStandardError()));
    QVERIFY_THROWS_EXCEPTION(attnlab::DataError, inspector.inspect("   "));
  }

 private:
  RunConfig tinyConfig() const {
    // Smaller still than the shared tiny configuration: every variant trains here.
    RunConfig c =
        attnlab::tests::tinyRunConfig(m_corpus, fs::path(m_dir.path().toStdString()) / "tok.model");
    c.run.seed = 5;
    c.data.sequenceLength = 20;
    c.model.hiddenSize = 16;
    c.model.ffnSize = 32;
    c.model.maxPositions = 24;
    c.schedule.steps = 6;
    c.train.evalEvery = 3;
    c.train.checkpointEvery = 0;
    c.log.snapshotSequences = 2;
    return c;
  }
  fs::path runDir(const char* name) const { return fs::path(m_dir.path().toStdString()) / name; }

  QTemporaryDir m_dir;
  fs::path m_corpus;
};

QTEST_APPLESS_MAIN(TestVariantTraining)
#include "test_variant_training.moc"
