// A Hugging Face RoBERTa folder used as a run (issue 29), as a user drives attnlab-cli: a small
// RoBERTa that transformers pretrained on WordNet with a byte-level BPE tokenizer
// (tests/fixtures/hf-roberta-wordnet, copied and made read-only, as a download cache is); the
// BERT twin is test_cli_model_folder.
// - `inspect MODEL_DIR` on a text with a leading word, punctuation, accents, an emoji and
//   " <mask>": the ids equal the `tokenizers` library's (<s> ... </s> from the folder's
//   tokenizer.json), the attention transformers' own (output_attentions, RoBERTa's positions
//   from pad_token_id + 1) within 1e-5 where transformers is installed for ATTNLAB_HF_PYTHON
//   (tests/app/model_folder_check.py; that part skipped, saying why, where it is not).
// - XLM-R (tests/fixtures/hf-xlmr-wordnet, SentencePiece with fairseq's ids): inspect against
//   `tokenizers` and transformers as above, and a run started from it.
// - A run started from a folder exports (export-model) with that folder's tokenizer files:
//   read back, and by tokenizers/transformers where installed, it computes the run's attention.
// - `analyze` and `probe coref MODEL_DIR` write into the work folder under $XDG_DATA_HOME.
// - `train --set model.init_from=MODEL_DIR` with a learning rate of 1e-30 computes the
//   folder's attention, with its byte-level tokenizer copied into the run.
// - Mechanisms on top of model.init_from (the BERT fixture): SesameBERT's squeeze-excitation,
//   the learnable temperature, ASA and attention guidance each train 10 steps; the checkpoint
//   holds the mechanism's own parameters (initialised as its paper says) beside the
//   pretrained ones, which at a learning rate of 1e-30 are still the folder's within 1e-6.
#include "core/checkpoint/checkpoint_store.h"
#include "core/inspect/attention_inspector.h"
#include "core/pretrained/hf_bert_import.h"
#include "core/runlog/run_log_reader.h"
#include "core/tokenizer/tokenizer.h"
#include "tests/support/cli_process.h"
#include "tests/support/model_folder_runs.h"

#include <torch/torch.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <set>
#include <string>

using attnlab::tests::initFromArguments;
using attnlab::tests::lastCheckpointOf;
using attnlab::tests::runCli;
using attnlab::tests::runProcess;
using namespace attnlab;

namespace {

const QString kRoberta = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/fixtures/hf-roberta-wordnet");
const QString kBert = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/fixtures/hf-bert-wordnet");
const QString kXlmr = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/fixtures/hf-xlmr-wordnet");
const QString kHfPython = QStringLiteral(ATTNLAB_HF_PYTHON);
const QString kCheck = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/app/model_folder_check.py");
// A leading word (no space before it: no "Ġ"), punctuation, accents, an emoji (four bytes,
// no merges) and " <mask>" (the special token, found before the byte-level split).
const QString kText = QStringLiteral(
    "Naïve readers say: the café's crème brûlée \U0001F642 was <mask> good, honestly!");

// `run` (started from a pretrained folder) exported with export-model: the export keeps the
// folder's tokenizer files, AttnLab reads it back computing the run's attention (ids equal,
// within 1e-6), and where `tokenizers` (and transformers) are installed for ATTNLAB_HF_PYTHON
// they give the same ids (and attention). Empty when all holds, else what failed.
QString checkExportOf(const QString& run, const QString& out, const QString& text) {
  const auto exported = runCli({"export-model", run, "--out", out});
  if (exported.exitCode != 0) return "export-model: " + exported.err;
  core::AttentionInspector back(out.toStdString());
  core::AttentionInspector started(lastCheckpointOf(run).toStdString());
  const auto a = back.inspect(text.toStdString());
  const auto b = started.inspect(text.toStdString());
  if (a.ids != b.ids) return "the exported folder's ids differ from the run's";
  const double worst = (a.probabilities - b.probabilities).abs().max().item<double>();
  if (worst > 1e-6) return "attention differs by " + QString::number(worst);
  const QString h5 = out + ".inspect.h5";
  const auto inspected = runCli({"inspect", out, "--text", text, "--out", h5});
  if (inspected.exitCode != 0) return "inspect: " + inspected.err;
  const auto check = runProcess(kHfPython, {kCheck, out, h5, text});
  if (check.exitCode == 3 || check.exitCode == -1) return {};  // no tokenizers: said elsewhere
  qInfo().noquote() << "export of" << run << ":" << check.out.trimmed();
  return check.exitCode == 0 ? QString() : check.out + check.err;
}

// What a checkpoint holds against the folder's network: the largest difference over the
// pretrained parameters, and the names of its parameters the folder lacks.
struct AgainstFolder {
  double worst = 0.0;
  QStringList missing;  ///< pretrained parameters the checkpoint lacks
  QStringList extra;    ///< the checkpoint's own ("model/" stripped)
};

AgainstFolder compareToFolder(const QString& checkpoint, const QString& folder) {
  const auto data = core::CheckpointStore::load(checkpoint.toStdString());
  const auto pretrained = core::loadHuggingFaceBert(folder.toStdString());
  AgainstFolder result;
  std::set<std::string> seen;
  for (const auto& p : pretrained.network->named_parameters()) {
    seen.insert(p.key());
    const auto it = data.tensors.find("model/" + p.key());
    if (it == data.tensors.end() || it->second.sizes() != p.value().sizes()) {
      result.missing << QString::fromStdString(p.key());
      continue;
    }
    const double d =
        (it->second.to(torch::kFloat64) - p.value().to(torch::kFloat64)).abs().max().item<double>();
    result.worst = std::max(result.worst, d);
  }
  for (const auto& [key, tensor] : data.tensors)
    if (key.rfind("model/", 0) == 0 && !seen.count(key.substr(6)))
      result.extra << QString::fromStdString(key.substr(6));
  return result;
}

}  // namespace

class TestCliRobertaFolder : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_roberta = tests::readOnlyCopy(kRoberta, m_dir.path() + "/roberta-wordnet");
    m_bert = tests::readOnlyCopy(kBert, m_dir.path() + "/bert-wordnet");
    QVERIFY(!m_roberta.isEmpty() && !m_bert.isEmpty());
    // The work folders (data cache, reports) go under the test's own XDG_DATA_HOME.
    qputenv("XDG_DATA_HOME", (m_dir.path() + "/data-home").toUtf8());
  }

  void inspectMatchesTokenizersAndTransformers() {
    const QString out = m_dir.path() + "/inspect.h5";
    const auto r = runCli({"inspect", m_roberta, "--text", kText, "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("step 0") && r.out.contains("2 layers x 4 heads"), qPrintable(r.out));
    const auto check = runProcess(kHfPython, {kCheck, m_roberta, out, kText});
    if (check.exitCode == 3 || (check.exitCode == -1 && check.err.contains("No such file")))
      QSKIP(qPrintable("the tokenizers library is not installed for " + kHfPython +
                       ": run bash packaging/setup-hf-python.sh (" + check.out + check.err + ")"));
    qInfo().noquote() << check.out.trimmed();
    QVERIFY2(check.exitCode == 0, qPrintable(check.out + check.err));
    QVERIFY2(check.out.contains("<s> ... </s>"), qPrintable(check.out));
  }

  // XLM-R (tests/fixtures/hf-xlmr-wordnet: its SentencePiece model with fairseq's ids):
  // inspect's ids equal what `tokenizers` makes of its tokenizer.json, its attention
  // transformers'; a run started from it at a learning rate of 1e-30 computes the same.
  void xlmRobertaInspectsAndStartsARun() {
    const QString xlmr = tests::readOnlyCopy(kXlmr, m_dir.path() + "/xlmr-wordnet");
    QVERIFY(!xlmr.isEmpty());
    const QString out = m_dir.path() + "/inspect-xlmr.h5";
    const auto r = runCli({"inspect", xlmr, "--text", kText, "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto check = runProcess(kHfPython, {kCheck, xlmr, out, kText});
    if (check.exitCode != 3 && !(check.exitCode == -1 && check.err.contains("No such file"))) {
      qInfo().noquote() << check.out.trimmed();
      QVERIFY2(check.exitCode == 0 && check.out.contains("<s> ... </s>"),
               qPrintable(check.out + check.err));
    }
    const QString run = m_dir.path() + "/from-xlmr";
    const auto trained = runCli(initFromArguments(xlmr, run, 2) +
                                QStringList{"--set", "optimizer.learning_rate=1e-30"});
    QVERIFY2(trained.exitCode == 0, qPrintable(trained.err + trained.out));
    QVERIFY(QFile::exists(run + "/tokenizer/sentencepiece.bpe.model"));
    core::AttentionInspector pretrained(xlmr.toStdString());
    core::AttentionInspector started(lastCheckpointOf(run).toStdString());
    QCOMPARE(started.tokenizer().kind(), core::TokenizerKind::FairseqSentencePiece);
    const auto a = pretrained.inspect(kText.toStdString());
    const auto b = started.inspect(kText.toStdString());
    QCOMPARE(a.ids, b.ids);
    const double worst = (a.probabilities - b.probabilities).abs().max().item<double>();
    QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
    const QString problem = checkExportOf(run, m_dir.path() + "/from-xlmr-hf", kText);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(QFile::exists(m_dir.path() + "/from-xlmr-hf/sentencepiece.bpe.model"));
    if (check.exitCode == 3 || check.exitCode == -1)
      QSKIP(qPrintable("the tokenizers library is not installed for " + kHfPython +
                       ": the ids were not compared (" + check.out + check.err + ")"));
  }

  void analyzeAndProbeWriteIntoTheWorkFolder() {
    const int files = QDir(m_roberta).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).size();
    QString error;
    const QStringList reports =
        tests::analyseAndProbe(m_roberta, m_dir.path() + "/data-home", error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(reports.size(), 2);
    QFile json(reports.filter("analysis.json").value(0));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QByteArray text = json.readAll();
    QVERIFY2(text.contains("\"layers\": 2") && text.contains("\"heads\": 4"), text.left(400));
    QVERIFY2(text.contains("roberta-wordnet"), "the report names the model folder");
    QCOMPARE(QDir(m_roberta).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).size(), files);
  }

  void initFromStartsFromTheWeights() {
    const QString run = m_dir.path() + "/from-roberta";
    const auto r = runCli(initFromArguments(m_roberta, run, 2) +
                          QStringList{"--set", "optimizer.learning_rate=1e-30"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2((r.out + r.err).contains("weights and tokenizer from") &&
                 (r.out + r.err).contains("roberta"),
             qPrintable(r.out));
    QVERIFY(QFile::exists(run + "/tokenizer/tokenizer.json"));
    core::AttentionInspector pretrained(m_roberta.toStdString());
    core::AttentionInspector started(lastCheckpointOf(run).toStdString());
    QCOMPARE(started.tokenizer().vocabSize(), pretrained.tokenizer().vocabSize());
    const auto a = pretrained.inspect(kText.toStdString());
    const auto b = started.inspect(kText.toStdString());
    QCOMPARE(a.ids, b.ids);
    const double worst = (a.probabilities - b.probabilities).abs().max().item<double>();
    qInfo().noquote() << "init_from attention difference" << worst;
    QVERIFY2(worst < 1e-6, qPrintable(QString::number(worst)));
    const auto weights = compareToFolder(lastCheckpointOf(run), m_roberta);
    QVERIFY2(weights.missing.isEmpty(), qPrintable(weights.missing.join(", ")));
    QVERIFY2(weights.extra.isEmpty(), qPrintable(weights.extra.join(", ")));
    QVERIFY2(weights.worst < 1e-6, qPrintable(QString::number(weights.worst)));
    // Exported, it keeps RoBERTa's byte-level tokenizer and computes the run's attention.
    const QString problem = checkExportOf(run, m_dir.path() + "/from-roberta-hf", kText);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  void aMechanismTrainsOnTopOfIt_data() {
    QTest::addColumn<QStringList>("settings");
    QTest::addColumn<QString>("ownParameter");  // what every extra parameter's name holds
    QTest::addColumn<QStringList>("ownValue");  // one extra parameter and its initial value
    QTest::addColumn<QString>("logged");        // a scalar of the mechanism's in run.h5
    QTest::newRow("sesamebert squeeze-excitation")
        << QStringList{"attention.squeeze.enabled=true"} << "squeeze."
        << QStringList{"squeeze.fc1.bias", "0.8"} << QString();
    QTest::newRow("learnable temperature")
        << QStringList{"attention.temperature=true"} << "attention.temperature_"
        << QStringList{"layers.1.attention.temperature_k", "1"} << QString();
    QTest::newRow("asa") << QStringList{"attention.asa.enabled=true"} << "adversaries."
                         << QStringList{} << "asa/token_kl";
    QTest::newRow("attention guidance")
        << QStringList{"attention.guidance.enabled=true", "attention.guidance.layers=0"}
        << QString() << QStringList{} << "guidance/loss";
  }

  void aMechanismTrainsOnTopOfIt() {
    QFETCH(QStringList, settings);
    QFETCH(QString, ownParameter);
    QFETCH(QStringList, ownValue);
    QFETCH(QString, logged);
    const QString run = m_dir.path() + "/from-bert-" + settings.first().section('.', 1, 1);
    QStringList args =
        initFromArguments(m_bert, run, 10) + QStringList{"--set", "optimizer.learning_rate=1e-30"};
    for (const QString& s : settings) args << "--set" << s;
    const auto r = runCli(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(!r.out.contains("nan", Qt::CaseInsensitive), qPrintable(r.out));
    const QString checkpoint = lastCheckpointOf(run);
    QCOMPARE(core::CheckpointStore::inspect(checkpoint.toStdString()).step, 10);
    const auto weights = compareToFolder(checkpoint, m_bert);
    QVERIFY2(weights.missing.isEmpty(), qPrintable(weights.missing.join(", ")));
    QVERIFY2(weights.worst < 1e-6, qPrintable(QString::number(weights.worst)));
    // Attention guidance is a loss, with no parameters of its own.
    QCOMPARE(weights.extra.isEmpty(), ownParameter.isEmpty());
    const auto data = core::CheckpointStore::load(checkpoint.toStdString());
    for (const QString& name : weights.extra) {
      QVERIFY2(name.contains(ownParameter), qPrintable(name));
      // Gradients reached it: Adam's first moment is not zero (lr 1e-30 barely moves it).
      const auto moment = data.tensors.find("optimizer/" + name.toStdString() + "/exp_avg");
      QVERIFY2(moment != data.tensors.end(), qPrintable("no optimizer state for " + name));
      QVERIFY2(moment->second.abs().max().item<double>() > 0, qPrintable(name));
    }
    if (!ownValue.isEmpty()) {
      const auto it = data.tensors.find("model/" + ownValue[0].toStdString());
      QVERIFY2(it != data.tensors.end(), qPrintable(weights.extra.join(", ")));
      const double off = (it->second - ownValue[1].toDouble()).abs().max().item<double>();
      QVERIFY2(off < 1e-6, qPrintable(ownValue[0] + " starts off by " + QString::number(off)));
    }
    if (!logged.isEmpty()) {
      const auto series =
          core::RunLogReader((run + "/run.h5").toStdString()).scalar(logged.toStdString());
      QVERIFY2(!series.values.empty(), qPrintable(logged));  // logged every log.every steps
      QVERIFY2(std::isfinite(series.values.back()) && series.values.back() > 0, qPrintable(logged));
    }
  }

 private:
  QTemporaryDir m_dir;
  QString m_roberta;
  QString m_bert;
};

QTEST_GUILESS_MAIN(TestCliRobertaFolder)
#include "test_cli_roberta_folder.moc"
