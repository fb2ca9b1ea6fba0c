// `attnlab-cli analyze`'s corpus summaries beyond the weights (rollout, weights against norms,
// the logit lens at masked positions) on a real trained run, checked by
// tests/analysis/beyond_summaries_reference.py: the model recomputed from the checkpoint's
// tensors in numpy float64, every sentence of the evaluation text, the masking re-implemented
// from docs/analysis.md. The checker must fail on a perturbed report (a negative control of
// the check itself), and each --no-* switch leaves its summary and its CSV out.
#include "tests/support/cli_process.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using attnlab::tests::kPython;
using attnlab::tests::runCli;
using attnlab::tests::runProcess;

namespace {

const QString kReference =
    QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/analysis/beyond_summaries_reference.py");
const QStringList kSentences = {"the cat sat on the mat because it was warm",
                                "a small dog ran across the wide green field",
                                "words are defined by other words", "to be",
                                "the cat and the dog sat on the warm mat near the field"};

}  // namespace

class TestCliAnalyzeBeyond : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;
  QStringList m_inspections;

  static QString checkpointOf(const QString& run) {
    const auto files = QDir(run + "/checkpoints").entryList({"step-*.h5"}, QDir::Files, QDir::Name);
    return files.isEmpty() ? QString() : run + "/checkpoints/" + files.last();
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("corpus.txt"),
        QByteArray::fromStdString(attnlab::tests::regularCorpusText(400))));
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("small.toml"),
        attnlab::tests::smallRunToml("beyond", m_dir.filePath("corpus.txt"), 6, 6)));
    QVERIFY(attnlab::tests::writeBytes(m_dir.filePath("sentences.txt"),
                                       (kSentences.join('\n') + '\n').toUtf8()));
    m_run = m_dir.filePath("run");
    const auto r = runCli({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", m_run,
                           "--set", "run.seed=11"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    // The token ids of each sentence, as the model reads them.
    for (int i = 0; i < kSentences.size(); ++i) {
      const QString out = m_dir.filePath(QString("sentence-%1.h5").arg(i));
      const auto inspect = runCli({"inspect", m_run, "--text", kSentences[i], "--out", out});
      QVERIFY2(inspect.exitCode == 0, qPrintable(inspect.out + inspect.err));
      m_inspections << out;
    }
  }

  void summariesMatchTheModelRecomputed() {
    const QString out = m_dir.filePath("report");
    const auto r = runCli({"analyze", m_run, "--text", m_dir.filePath("sentences.txt"), "--out",
                           out, "--no-snapshots", "--batch-size", "2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("rollout layer 1") && r.out.contains("lens layer 1"),
             qPrintable(r.out));
    for (const char* f :
         {"rollout_layers.csv", "norms_heads.csv", "norms_layers.csv", "logit_lens.csv"}) {
      QVERIFY2(QFile::exists(out + "/" + f), f);
    }
    const auto check =
        runProcess(kPython, QStringList{kReference, checkpointOf(m_run), out + "/analysis.json"} +
                                m_inspections);
    QVERIFY2(check.exitCode == 0, qPrintable(check.out + check.err));
    QVERIFY2(check.out.contains("ok: 5 sequences"), qPrintable(check.out));

    // The checker fails on a perturbed rollout spread: it can tell.
    const QString perturb =
        "import json,sys\n"
        "d=json.load(open(sys.argv[1]))\n"
        "d['beyond_weights']['rollout']['per_layer'][1]['spread']+=0.001\n"
        "json.dump(d,open(sys.argv[1],'w'))\n";
    QVERIFY(runProcess(kPython, {"-c", perturb, out + "/analysis.json"}).exitCode == 0);
    const auto bad =
        runProcess(kPython, QStringList{kReference, checkpointOf(m_run), out + "/analysis.json"} +
                                m_inspections);
    QVERIFY2(bad.exitCode == 1 && bad.out.contains("rollout spread: MISMATCH"),
             qPrintable(bad.out + bad.err));
  }

  void eachSwitchLeavesItsSummaryOut() {
    const QString out = m_dir.filePath("skipped");
    // A full report first, then the skipping one into the same folder: stale CSVs go.
    QVERIFY(runCli({"analyze", m_run, "--out", out, "--no-snapshots"}).exitCode == 0);
    QVERIFY(QFile::exists(out + "/logit_lens.csv"));
    const auto r = runCli({"analyze", m_run, "--out", out, "--no-snapshots", "--no-rollout",
                           "--no-norms", "--no-lens"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    for (const char* f :
         {"rollout_layers.csv", "norms_heads.csv", "norms_layers.csv", "logit_lens.csv"}) {
      QVERIFY2(!QFile::exists(out + "/" + f), f);
    }
    const QString script =
        "import json,sys\n"
        "d=json.load(open(sys.argv[1]))\n"
        "assert d['beyond_weights']=={}, d['beyond_weights']\n"
        "print('ok')\n";
    const auto py = runProcess(kPython, {"-c", script, out + "/analysis.json"});
    QVERIFY2(py.exitCode == 0 && py.out.startsWith("ok"), qPrintable(py.out + py.err));
    const auto lensOnly =
        runCli({"analyze", m_run, "--out", out, "--no-snapshots", "--no-rollout", "--no-norms"});
    QVERIFY(lensOnly.exitCode == 0);
    QVERIFY(QFile::exists(out + "/logit_lens.csv"));
    QVERIFY(!QFile::exists(out + "/rollout_layers.csv"));
  }
};

QTEST_GUILESS_MAIN(TestCliAnalyzeBeyond)
#include "test_cli_analyze_beyond.moc"
