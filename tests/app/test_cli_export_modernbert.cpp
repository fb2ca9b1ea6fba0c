// `attnlab-cli export-model` on runs of ModernBERT's layout (issue 43): a tiny run trained here
// (RoPE with two bases, a window of 8 in a 24-token block, global every 2nd layer, GeGLU, no
// biases, Pre-LN without layer 0's attention norm) and a run started from the committed
// ModernBERT fixture, each exported as a ModernBertForMaskedLM folder and loaded by Hugging
// Face's own libraries (tests/app/hf_export_check.py with ATTNLAB_HF_PYTHON): `tokenizers`
// gives AttnLab's ids; transformers' AutoTokenizer and AutoModelForMaskedLM (eager attention)
// give AttnLab's ids, logits and every layer's attention within 1e-5 (skipped, saying why,
// where transformers or torch >= 2 is missing: the CUDA line runs it), and a perturbed weight
// fails that check. AttnLab's own import of the folder gives back the run's architecture and
// attention; settings ModernBERT cannot compute are refused by key.
#include "core/config/attention_span.h"
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/inspect/attention_inspector.h"
#include "core/pretrained/hf_bert_import.h"
#include "core/pretrained/hf_model_export.h"
#include "core/pretrained/hf_tokenizer.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "tests/support/cli_process.h"
#include "tests/support/hf_export_reference.h"
#include "tests/support/model_folder_runs.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using attnlab::tests::runCli;
using attnlab::tests::runProcess;
using namespace attnlab;
namespace fs = std::filesystem;

namespace {

const QString kHfPython = QStringLiteral(ATTNLAB_HF_PYTHON);
const QString kCheck = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/app/hf_export_check.py");
const QString kFixture = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/fixtures/hf-modernbert");

/// ModernBERT's layout on the small run: 3 layers (global, windowed, global), bases far apart.
const QStringList kModernBertSets = {"model.layers=3",
                                     "model.norm=pre",
                                     "model.first_attention_norm=false",
                                     "model.position=rope",
                                     "model.position_embeddings=false",
                                     "model.rope_theta=160",
                                     "model.rope_theta_local=10",
                                     "model.attention_window=8",
                                     "model.global_every=2",
                                     "model.feed_forward=geglu",
                                     "model.bias=false",
                                     "model.layer_norm_eps=1e-5"};

QStringList setArguments(const QStringList& sets) {
  QStringList args;
  for (const auto& s : sets) args << "--set" << s;
  return args;
}

/// The corpus lines and the hard ones, as both references use them.
QStringList referenceLines() {
  QStringList lines = QString::fromUtf8(attnlab::tests::regularCorpusText(40)).split('\n');
  lines.removeAll(QString());
  return lines + attnlab::tests::exportHardLines();
}

QString refusalOf(const core::RunConfig& config) {
  const auto lines = core::hfExportRefusals(config, core::hfExportArchitectureOf(config.model));
  QStringList out;
  for (const auto& l : lines) out << QString::fromStdString(l);
  return out.join('\n');
}

}  // namespace

class TestCliExportModernBert : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run, m_out, m_ref;

  attnlab::tests::ProcessResult check(const QString& part, const QString& out, const QString& ref,
                                      const QStringList& extra = {}) {
    return runProcess(kHfPython, QStringList{kCheck, part, out, ref} + extra);
  }

  /// Trains `name` (the small run with ModernBERT's layout and `extra` settings, `steps`
  /// steps), exports it to <name>-hf and writes its reference to <name>-reference; the run's
  /// folder, or empty (the failure said) when a step failed.
  QString trainAndExport(const QString& name, const QStringList& extra, int steps) {
    const QString toml = m_dir.filePath(name + ".toml");
    const QString run = m_dir.filePath(name);
    attnlab::tests::writeBytes(
        toml, attnlab::tests::smallRunToml(name, m_dir.filePath("corpus.txt"), steps, 10));
    const auto trained =
        runCli(QStringList{"train", "--config", toml, "--run-dir", run, "--plain"} +
               setArguments(kModernBertSets + extra));
    if (trained.exitCode != 0) qWarning("%s", qPrintable(trained.out + trained.err));
    const auto r = runCli({"export-model", run, "--out", run + "-hf"});
    qInfo("%s", qPrintable(r.out + r.err));
    if (trained.exitCode != 0 || r.exitCode != 0 || !r.out.contains("ModernBertForMaskedLM"))
      return QString();
    const auto sp = core::SentencePieceTokenizer::load((run + "/tokenizer.model").toStdString());
    attnlab::tests::writeExportReference(attnlab::tests::lastCheckpointOf(run).toStdString(), sp,
                                         referenceLines(), (run + "-reference").toStdString());
    return run;
  }

  /// The transformers check's result `r` (run, not skipped) says it agrees.
  static void expectTransformersAgree(const attnlab::tests::ProcessResult& r) {
    qInfo("%s", qPrintable(r.out.trimmed()));
    QVERIFY2(r.exitCode == 0 && r.out.contains("ok: transformers") &&
                 r.out.contains("ModernBertForMaskedLM"),
             qPrintable(r.out + r.err));
    QVERIFY2(!r.err.contains("newly initialized") && !r.err.contains("not used") &&
                 !r.err.contains("MISSING") && !r.err.contains("UNEXPECTED"),
             qPrintable(r.err));
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("corpus.txt"),
        QByteArray::fromStdString(attnlab::tests::regularCorpusText(400))));
    m_run = trainAndExport("mb", {}, 20);
    QVERIFY(!m_run.isEmpty());
    m_out = m_run + "-hf";
    m_ref = m_run + "-reference";
  }

  void tokenizersGivesAttnLabsIds() {
    const auto r = check("tokenizers", m_out, m_ref);
    if (r.exitCode == 3) QSKIP(qPrintable("the tokenizers check: " + r.out.trimmed()));
    QVERIFY2(r.exitCode == 0 && r.out.contains("ok: tokenizers"), qPrintable(r.out + r.err));
  }

  void transformersGivesAttnLabsLogitsAndAttention() {
    const auto r = check("transformers", m_out, m_ref);
    if (r.exitCode == 3) QSKIP(qPrintable("the transformers check: " + r.out.trimmed()));
    expectTransformersAgree(r);
    if (QTest::currentTestFailed()) return;
    const auto bad = check("transformers", m_out, m_ref, {"--perturb"});
    QVERIFY2(bad.exitCode == 1 && bad.out.contains("logits: MISMATCH"),
             qPrintable(bad.out + bad.err));
    // The attention comparison's own negative control: a query weight of layer 0 moved.
    const auto moved = check("transformers", m_out, m_ref, {"--perturb-attention"});
    QVERIFY2(moved.exitCode == 1 && moved.out.contains("attention: MISMATCH") &&
                 moved.out.contains("Wqkv"),
             qPrintable(moved.out + moved.err));
  }

  // With biases (model.bias = true: every linear layer and norm, ModernBERT's four bias flags
  // on) and every layer global (no window): the other side of each config.json field.
  void biasesAndGlobalLayersExportToo() {
    const QString run =
        trainAndExport("mb-bias", {"model.bias=true", "model.attention_window=0"}, 10);
    QVERIFY(!run.isEmpty());
    const auto folder = core::describeHuggingFaceBert((run + "-hf").toStdString());
    QVERIFY(folder.model.bias);
    for (int l = 0; l < 3; ++l) QVERIFY(!core::isWindowedLayer(folder.model, l));
    const auto r = check("transformers", run + "-hf", run + "-reference");
    if (r.exitCode == 3) QSKIP(qPrintable("the transformers check: " + r.out.trimmed()));
    expectTransformersAgree(r);
  }

  // AttnLab's own import of the folder (hf_modernbert_import.h) reads back the run's
  // architecture, and its attention is the run's.
  void theImportReadsTheRunBack() {
    const auto config = core::parseRunConfig(
        core::CheckpointStore::load(attnlab::tests::lastCheckpointOf(m_run).toStdString())
            .metadata.configToml,
        "run");
    const auto folder = core::describeHuggingFaceBert(m_out.toStdString());
    QCOMPARE(folder.modelType, std::string("modernbert"));
    const auto& m = folder.model;
    QCOMPARE(m.layers, 3);
    QCOMPARE(m.attentionWindow, 8);
    QCOMPARE(m.globalEvery, 2);
    QCOMPARE(m.ropeTheta, 160.0);
    QCOMPARE(m.ropeThetaLocal, 10.0);
    QCOMPARE(m.bias, config.model.bias);
    QCOMPARE(m.layerNormEps, config.model.layerNormEps);
    const double worst = attnlab::tests::inspectedDifference(
        m_out.toStdString(), attnlab::tests::lastCheckpointOf(m_run).toStdString(),
        "the cat watched the river near the harbour and the dog sat on the mat");
    QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
  }

  // A run started from the committed ModernBERT folder keeps its byte-level BPE tokenizer;
  // exported after two steps at a learning rate of 1e-30 it is that model again, and
  // transformers computes with it what AttnLab does.
  void aRunFromAModernBertFolderExports() {
    const QString run = m_dir.filePath("from-fixture");
    const auto trained = runCli(attnlab::tests::initFromArguments(kFixture, run, 2) +
                                QStringList{"--set", "optimizer.learning_rate=1e-30"});
    QVERIFY2(trained.exitCode == 0, qPrintable(trained.out + trained.err));
    const QString out = m_dir.filePath("from-fixture-hf");
    const auto r = runCli({"export-model", run, "--out", out});
    QVERIFY2(r.exitCode == 0 && r.out.contains("ModernBertForMaskedLM"), qPrintable(r.out + r.err));
    QVERIFY(QFile::exists(out + "/tokenizer.json"));
    const QString ref = m_dir.filePath("from-fixture-reference");
    const auto tokenizer = core::loadHuggingFaceTokenizer((run + "/tokenizer").toStdString());
    attnlab::tests::writeExportReference(attnlab::tests::lastCheckpointOf(run).toStdString(),
                                         *tokenizer, referenceLines(), ref.toStdString());
    const auto ids = check("tokenizers", out, ref);
    if (ids.exitCode != 3) QVERIFY2(ids.exitCode == 0, qPrintable(ids.out + ids.err));
    const auto agree = check("transformers", out, ref);
    if (agree.exitCode == 3) QSKIP(qPrintable("the transformers check: " + agree.out.trimmed()));
    expectTransformersAgree(agree);
  }

  void whatModernBertCannotComputeIsRefusedByKey() {
    core::RunConfig c = core::loadRunConfig(fs::path(ATTNLAB_SOURCE_DIR) /
                                            "resources/configs/modernbert-tiny.toml");
    QCOMPARE(core::hfExportArchitectureOf(c.model), core::HfArchitecture::ModernBert);
    QCOMPARE(refusalOf(c), QString());
    c.model.firstAttentionNorm = true;
    c.model.feedForward = core::FeedForward::Gelu;
    c.attention.temperature = true;
    const QString lines = refusalOf(c);
    QVERIFY2(lines.contains("model.first_attention_norm = true") &&
                 lines.contains("model.feed_forward = gelu") &&
                 lines.contains("attention.temperature = true") && lines.count('\n') == 2,
             qPrintable(lines));
    c = core::loadRunConfig(fs::path(ATTNLAB_SOURCE_DIR) /
                            "resources/configs/modernbert-tiny.toml");
    c.model.norm = core::NormPlacement::Post;
    QVERIFY2(refusalOf(c).startsWith("model.norm = post"), qPrintable(refusalOf(c)));
  }

  void aRefusedRunWritesNothing() {
    const QString toml = m_dir.filePath("temperature.toml");
    const QString run = m_dir.filePath("temperature");
    attnlab::tests::writeBytes(
        toml, attnlab::tests::smallRunToml("t", m_dir.filePath("corpus.txt"), 2, 2));
    const auto trained =
        runCli(QStringList{"train", "--config", toml, "--run-dir", run, "--plain"} +
               setArguments(kModernBertSets + QStringList{"attention.temperature=true"}));
    QVERIFY2(trained.exitCode == 0, qPrintable(trained.out + trained.err));
    const QString out = m_dir.filePath("temperature-hf");
    const auto r = runCli({"export-model", run, "--out", out});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("ModernBertForMaskedLM") && r.err.contains("attention.temperature"),
             qPrintable(r.err));
    QVERIFY(!QFile::exists(out));
  }
};

QTEST_GUILESS_MAIN(TestCliExportModernBert)
#include "test_cli_export_modernbert.moc"
