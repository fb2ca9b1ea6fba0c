// `attnlab-cli analyze --heads` (Michel et al. 2019: head importance by a gate per head,
// single-head ablation, pruning curves) on a real trained run of 2 layers x 4 heads, checked by
// tests/app/heads_reference.py: the model recomputed from the checkpoint's tensors in numpy
// float64 with the gates, the masking re-implemented from docs/analysis.md, the importance by
// central finite differences (independent of the engine's autograd). The checker must fail on
// perturbed reports (a negative control of the check itself); the lens at the last layer sees
// the same masked positions and model as the heads' full pass; --no-ablation, no --heads and
// --pruning-seeds shape the report as documented, the random curves are reproducible, and
// reports with and without the heads read back (`export`).
#include "analysis/report/report_readers.h"
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

const QString kReference = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/app/heads_reference.py");
// Sentences of the training corpus's kind (the model has learnt something about them), and
// one short line (a single masked position).
const QStringList kSentences = {"the cat watched the river near the harbour .",
                                "a dog admired a bright star near the mountains .",
                                "our prince followed the quiet village near the harbour .",
                                "to be",
                                "a young girl painted an empty house near the mountains .",
                                "the old teacher remembered the river near the harbour ."};

// Defines heads_of(d): the heads' analysis object of an analysis.json as heads_reference.py
// finds it (the top-level object with "importance" and "pruning"; None when there is none).
const QString kHeadsOf =
    "import json,sys\n"
    "def heads_of(d):\n"
    "    found=[v for v in d.values() if isinstance(v,dict) and 'importance' in v and "
    "'pruning' in v]\n"
    "    assert len(found)<=1, len(found)\n"
    "    return found[0] if found else None\n";

QString readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

class TestCliAnalyzeHeads : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;
  QString m_checkpoint;
  QStringList m_inspections;

  static QString checkpointOf(const QString& run) {
    const auto files = QDir(run + "/checkpoints").entryList({"step-*.h5"}, QDir::Files, QDir::Name);
    return files.isEmpty() ? QString() : run + "/checkpoints/" + files.last();
  }

  /// analyze over the sentences into `out` with `extra` switches; false (and a failure) when
  /// it does not succeed.
  bool analyze(const QString& out, const QStringList& extra) {
    const auto r = runCli(QStringList{"analyze", m_run, "--text", m_dir.filePath("sentences.txt"),
                                      "--out", out, "--no-snapshots", "--batch-size", "4"} +
                          extra);
    if (r.exitCode != 0) qWarning("%s", qPrintable(r.out + r.err));
    return r.exitCode == 0;
  }

  attnlab::tests::ProcessResult reference(const QString& analysisJson) {
    return runProcess(kPython, QStringList{kReference, m_checkpoint, analysisJson} + m_inspections);
  }

  /// Runs a Python snippet (after kHeadsOf) on `args`; it prints "ok".
  static bool pythonOk(const QString& script, const QStringList& args) {
    const auto py = runProcess(kPython, QStringList{"-c", kHeadsOf + script} + args);
    if (py.exitCode != 0 || !py.out.startsWith("ok")) qWarning("%s", qPrintable(py.out + py.err));
    return py.exitCode == 0 && py.out.startsWith("ok");
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    if (runProcess(kPython, {"-c", "import numpy, h5py"}).exitCode != 0)
      QSKIP("the reference needs numpy and h5py in " ATTNLAB_PYTHON);
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("corpus.txt"),
        QByteArray::fromStdString(attnlab::tests::regularCorpusText(400))));
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("small.toml"),
        attnlab::tests::smallRunToml("heads", m_dir.filePath("corpus.txt"), 1200, 1200)));
    QVERIFY(attnlab::tests::writeBytes(m_dir.filePath("sentences.txt"),
                                       (kSentences.join('\n') + '\n').toUtf8()));
    m_run = m_dir.filePath("run");
    // 4 heads per layer for a pruning curve of several points; long enough, and fast enough,
    // for the heads to matter (masking 6 of 8 heads costs about 0.1 nats).
    const auto r = runCli({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", m_run,
                           "--set", "run.seed=11", "--set", "model.heads=4", "--set",
                           "optimizer.learning_rate=3e-3", "--set", "schedule.warmup_steps=20"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    m_checkpoint = checkpointOf(m_run);
    QVERIFY(!m_checkpoint.isEmpty());
    // The token ids of each sentence, as the model reads them.
    for (int i = 0; i < kSentences.size(); ++i) {
      const QString out = m_dir.filePath(QString("sentence-%1.h5").arg(i));
      const auto inspect = runCli({"inspect", m_run, "--text", kSentences[i], "--out", out});
      QVERIFY2(inspect.exitCode == 0, qPrintable(inspect.out + inspect.err));
      m_inspections << out;
    }
  }

  void headsMatchTheModelRecomputed() {
    const QString out = m_dir.filePath("report");
    QVERIFY(analyze(out, {"--heads", "--no-rollout", "--no-norms", "--no-lens"}));
    QVERIFY(QFile::exists(out + "/heads_pruning.csv"));
    QVERIFY(readAll(out + "/heads_importance.csv")
                .startsWith("layer,head,importance_raw,importance_normalised,ablated_loss_nats,"
                            "ablated_accuracy,ablated_loss_delta_nats\n"));
    const auto check = reference(out + "/analysis.json");
    QVERIFY2(check.exitCode == 0, qPrintable(check.out + check.err));
    QVERIFY2(check.out.contains("ok: 6 sequences") && check.out.contains("4 pruning curves"),
             qPrintable(check.out));
    qInfo("%s", qPrintable(check.out));

    // The checker fails on a perturbed importance, a perturbed pruning loss and a swapped
    // importance order: it can tell.
    struct Perturbation {
      const char* edit;
      const char* message;
    };
    const Perturbation perturbations[] = {
        {"h['importance']['raw'][1][2]*=1.01", "importance raw: MISMATCH"},
        {"h['pruning'][1]['points'][3]['loss']+=1e-3", "pruning random seed 1 loss: MISMATCH"},
        {"o=h['pruning'][0]['heads'];o[0],o[1]=o[1],o[0]", "pruning importance order: MISMATCH"},
        {"h['ablation'][5]['loss']-=1e-3", "ablation loss: MISMATCH"}};
    for (const auto& p : perturbations) {
      const QString copy = m_dir.filePath("perturbed.json");
      QFile::remove(copy);
      QVERIFY(QFile::copy(out + "/analysis.json", copy));
      const QString script = QString(
                                 "d=json.load(open(sys.argv[1]))\n"
                                 "h=heads_of(d)\n"
                                 "%1\n"
                                 "json.dump(d,open(sys.argv[1],'w'))\n"
                                 "print('ok')\n")
                                 .arg(p.edit);
      QVERIFY(pythonOk(script, {copy}));
      const auto bad = reference(copy);
      QVERIFY2(bad.exitCode == 1 && bad.out.contains(p.message),
               qPrintable(QString(p.edit) + ": " + bad.out + bad.err));
    }
  }

  void lensAccuracyIsTheFullModels() {
    // Same masking, same model: the lens's last layer predicts as the ungated heads' pass.
    const QString out = m_dir.filePath("with-lens");
    QVERIFY(analyze(out, {"--heads", "--no-ablation"}));
    const QString script =
        "d=json.load(open(sys.argv[1]))\n"
        "lens,heads=d['beyond_weights']['lens'],heads_of(d)\n"
        "assert lens['positions']==heads['positions'],(lens['positions'],heads['positions'])\n"
        "assert lens['masking']['seed']==heads['masking']['seed']\n"
        "last=lens['rows'][-1]['accuracy']\n"
        "assert last==heads['full']['accuracy'],(last,heads['full']['accuracy'])\n"
        "print('ok', last)\n";
    QVERIFY(pythonOk(script, {out + "/analysis.json"}));
  }

  void noAblationLeavesItOut() {
    const QString out = m_dir.filePath("no-ablation");
    QVERIFY(analyze(out, {"--heads", "--no-ablation", "--no-rollout", "--no-norms", "--no-lens"}));
    QVERIFY(QFile::exists(out + "/heads_pruning.csv"));
    const QString csv = readAll(out + "/heads_importance.csv");
    QVERIFY2(csv.startsWith("layer,head,importance_raw,importance_normalised\n"), qPrintable(csv));
    QVERIFY2(!csv.contains("ablated"), qPrintable(csv));
    QVERIFY(
        pythonOk("h=heads_of(json.load(open(sys.argv[1])))\n"
                 "assert 'ablation' not in h, list(h)\n"
                 "assert h['pruning'] and 'importance' in h\n"
                 "print('ok')\n",
                 {out + "/analysis.json"}));
    // The rest still agrees with the model.
    const auto check = reference(out + "/analysis.json");
    QVERIFY2(check.exitCode == 0 && check.out.contains("ablation: not in the report"),
             qPrintable(check.out + check.err));
  }

  void withoutHeadsThereAreNone() {
    const QString out = m_dir.filePath("without");
    // A report with the heads first, then one without into the same folder: stale CSVs go.
    QVERIFY(analyze(out, {"--heads", "--no-ablation", "--no-rollout", "--no-norms", "--no-lens"}));
    QVERIFY(QFile::exists(out + "/heads_importance.csv"));
    QVERIFY(analyze(out, {"--no-rollout", "--no-norms", "--no-lens"}));
    QVERIFY(QFile::exists(out + "/analysis.json"));
    QVERIFY(QDir(out).entryList({"heads_*.csv"}, QDir::Files).isEmpty());
    QVERIFY(
        pythonOk("d=json.load(open(sys.argv[1]))\n"
                 "assert heads_of(d) is None\n"
                 "print('ok')\n",
                 {out + "/analysis.json"}));
  }

  void pruningSeedsAreReproducible() {
    const QStringList args = {"--heads",
                              "--no-ablation",
                              "--no-rollout",
                              "--no-norms",
                              "--no-lens",
                              "--pruning-seeds",
                              "7",
                              "8"};
    const QString first = m_dir.filePath("seeds-1"), second = m_dir.filePath("seeds-2");
    QVERIFY(analyze(first, args));
    QVERIFY(analyze(second, args));
    const QString script =
        "a=heads_of(json.load(open(sys.argv[1])))['pruning']\n"
        "b=heads_of(json.load(open(sys.argv[2])))['pruning']\n"
        "assert [(c['order'],c['seed']) for c in a]==[('importance',0),('random',7),"
        "('random',8)], [(c['order'],c['seed']) for c in a]\n"
        "assert a==b, 'the two runs differ'\n"
        "assert a[1]['heads']!=a[2]['heads'], 'seeds 7 and 8 give the same order'\n"
        "print('ok')\n";
    QVERIFY(pythonOk(script, {first + "/analysis.json", second + "/analysis.json"}));
    const auto check = reference(first + "/analysis.json");
    QVERIFY2(check.exitCode == 0 && check.out.contains("pruning random seed 8 order: valid"),
             qPrintable(check.out + check.err));
  }

  void reportsReadBack() {
    // The desktop app and `export` read analysis.json back (analysis::readAnalysisJson): a
    // report without the heads' analysis and one with it. (The heads' object was first written
    // under "heads", the key of the number of heads per layer, and then neither report could
    // be read.) Read here by the reader itself: a headless build has no figure export.
    for (const bool heads : {false, true}) {
      const QString out = m_dir.filePath(heads ? "with" : "without");
      QStringList args = {"analyze",        m_run,
                          "--text",         m_dir.filePath("sentences.txt"),
                          "--no-snapshots", "--no-rollout",
                          "--no-norms",     "--no-lens",
                          "--out",          out};
      if (heads)
        args << "--heads"
             << "--no-ablation";
      const auto r = runCli(args);
      QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
      try {
        const auto report =
            attnlab::analysis::readAnalysisJson((out + "/analysis.json").toStdString());
        QCOMPARE(report.heads.has_value(), heads);
        QCOMPARE(report.statistics.heads, 4);
        if (heads) {
          QCOMPARE(report.heads->importance.size(), std::size_t{2 * 4});
          QVERIFY(report.heads->ablation.empty());
          QCOMPARE(report.heads->pruning.size(), std::size_t{4});
        }
      } catch (const std::exception& e) {
        QFAIL(e.what());
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestCliAnalyzeHeads)
#include "test_cli_analyze_heads.moc"
