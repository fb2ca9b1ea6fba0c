// `attnlab-cli export-model` on a tiny run it trained, the folder loaded by Hugging Face's own
// libraries (tests/app/hf_export_check.py, run with ATTNLAB_HF_PYTHON): `tokenizers` gives
// AttnLab's ids for every text (corpus lines and harder ones: runs of spaces, tabs, accents,
// ligatures, characters the tokenizer has never seen, lines longer than the model);
// transformers' AutoTokenizer and AutoModelForMaskedLM give the same ids, logits and attention
// within 1e-5 as AttnLab's engine computes here (skipped, saying why, where transformers or
// torch >= 2 is missing), and a perturbed weight (one word embedding, 1e-3) fails that check. An
// existing folder is kept without --force; a RealFormer run is refused naming attention.residual.
#include "core/inspect/attention_inspector.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "tests/support/cli_process.h"
#include "tests/support/hf_export_reference.h"
#include "tests/support/model_folder_runs.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"

#include <torch/torch.h>

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

QString checkpointOf(const QString& run) {
  const auto files = QDir(run + "/checkpoints").entryList({"step-*.h5"}, QDir::Files, QDir::Name);
  return files.isEmpty() ? QString() : run + "/checkpoints/" + files.last();
}

}  // namespace

class TestCliExportModel : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run, m_out, m_ref;

  /// Trains `name` for `steps` steps, a checkpoint every `every`, with `extra` TOML lines after
  /// the small configuration.
  QString train(const QString& name, int steps, int every, const QByteArray& extra) {
    const QString toml = m_dir.filePath(name + ".toml");
    const QString run = m_dir.filePath(name);
    attnlab::tests::writeBytes(
        toml,
        attnlab::tests::smallRunToml(name, m_dir.filePath("corpus.txt"), steps, every) + extra);
    const auto r = runCli({"train", "--config", toml, "--run-dir", run, "--plain"});
    if (r.exitCode != 0) qWarning("%s", qPrintable(r.out + r.err));
    return r.exitCode == 0 ? run : QString();
  }

  attnlab::tests::ProcessResult check(const QString& part, const QStringList& extra = {}) {
    return runProcess(kHfPython, QStringList{kCheck, part, m_out, m_ref} + extra);
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("corpus.txt"),
        QByteArray::fromStdString(attnlab::tests::regularCorpusText(400))));
    m_run = train("hf", 20, 10, "");
    QVERIFY(!m_run.isEmpty());
    m_out = m_dir.filePath("exported");
    const auto r = runCli({"export-model", m_run, "--out", m_out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    qInfo("%s", qPrintable(r.out));
    QVERIFY2(r.out.contains("step 20") && r.out.contains("wrote tokenizer.json") &&
                 r.out.contains("wrote model.safetensors"),
             qPrintable(r.out));
    QStringList lines = QString::fromUtf8(attnlab::tests::regularCorpusText(60)).split('\n');
    lines.removeAll(QString());
    m_ref = m_dir.filePath("reference");
    const auto sp = core::SentencePieceTokenizer::load((m_run + "/tokenizer.model").toStdString());
    attnlab::tests::writeExportReference(checkpointOf(m_run).toStdString(), sp,
                                         lines + attnlab::tests::exportHardLines(),
                                         m_ref.toStdString());
  }

  void tokenizersGivesAttnLabsIds() {
    const auto r = check("tokenizers");
    if (r.exitCode == 3) QSKIP(qPrintable("the tokenizers check: " + r.out.trimmed()));
    QVERIFY2(r.exitCode == 0 && r.out.contains("ok: tokenizers"), qPrintable(r.out + r.err));
  }

  void transformersGivesAttnLabsLogits() {
    const auto r = check("transformers");
    if (r.exitCode == 3) QSKIP(qPrintable("the transformers check: " + r.out.trimmed()));
    QVERIFY2(r.exitCode == 0 && r.out.contains("ok: transformers"), qPrintable(r.out + r.err));
    qInfo("%s", qPrintable(r.out.trimmed()));
    QVERIFY2(!r.err.contains("newly initialized") && !r.err.contains("not used") &&
                 !r.err.contains("MISSING") && !r.err.contains("UNEXPECTED"),
             qPrintable(r.err));
    // The negative control: one weight moved by 1e-3 is seen.
    const auto bad = check("transformers", {"--perturb"});
    QVERIFY2(bad.exitCode == 1 && bad.out.contains("logits: MISMATCH"),
             qPrintable(bad.out + bad.err));
    const auto moved = check("transformers", {"--perturb-attention"});
    QVERIFY2(moved.exitCode == 1 && moved.out.contains("attention: MISMATCH") &&
                 moved.out.contains("query"),
             qPrintable(moved.out + moved.err));
  }

  // The exported folder is a model to start from: model.init_from copies its SentencePiece
  // model with its tokenizer.json, and at a learning rate of 1e-30 the new run computes the
  // export's attention.
  void aRunStartsFromTheExport() {
    const QString run = m_dir.filePath("from-export");
    const auto r = runCli(attnlab::tests::initFromArguments(m_out, run, 2) +
                          QStringList{"--set", "optimizer.learning_rate=1e-30"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY(QFile::exists(run + "/tokenizer/tokenizer.model"));
    const double worst = attnlab::tests::inspectedDifference(
        m_out.toStdString(), attnlab::tests::lastCheckpointOf(run).toStdString(),
        "the cat sat on the mat");
    QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
  }

  void existingFolderKeptWithoutForce() {
    const QString out = m_dir.filePath("occupied");
    QVERIFY(QDir().mkpath(out));
    QVERIFY(attnlab::tests::writeBytes(out + "/mine.txt", "keep me"));
    const auto r = runCli({"export-model", m_run, "--out", out});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("not empty") && r.err.contains("--force"), qPrintable(r.err));
    QVERIFY(QFile::exists(out + "/mine.txt"));
    const auto forced = runCli({"export-model", m_run, "--out", out, "--force", "--step", "10"});
    QVERIFY2(forced.exitCode == 0 && forced.out.contains("step 10"),
             qPrintable(forced.out + forced.err));
    QVERIFY(!QFile::exists(out + "/mine.txt"));
    QVERIFY(QFile::exists(out + "/tokenizer.json"));
    QCOMPARE(QDir(m_dir.path()).entryList({"occupied.*"}, QDir::AllEntries | QDir::Hidden),
             QStringList());
  }

  void realFormerRefused() {
    const QString run = train("realformer", 2, 2, "[attention]\nresidual = \"sum\"\n");
    QVERIFY(!run.isEmpty());
    const QString out = m_dir.filePath("realformer-out");
    const auto r = runCli({"export-model", run, "--out", out});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("attention.residual = sum"), qPrintable(r.err));
    QVERIFY(!QFile::exists(out));
  }
};

QTEST_GUILESS_MAIN(TestCliExportModel)
#include "test_cli_export_model.moc"
