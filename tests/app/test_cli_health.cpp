// `attnlab-cli health` (issue 41, analysis/jobs/health_job.h) and the run log's health/*
// series on a real tiny run, checked by tests/app/health_check.py in numpy float64: the log's
// series against the attention snapshots of the same probe batch and against the encoder
// recomputed from each checkpoint (spectral norms by numpy's SVD); a report on a text file
// against `inspect --capture` of each line, for a run and for a model folder without MLM head; the
// checker fails on a perturbed value naming the quantity; bad input (a step without checkpoint, a
// missing, empty or blank text file, an epsilon out of range) is refused with a message that names
// it, leaving no report folder; under rotary positions, the largest spectral norm over the
// offsets against numpy's SVD of the form at each offset.
#include "tests/support/cli_process.h"
#include "tests/support/model_folder_runs.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

using attnlab::tests::kPython;
using attnlab::tests::runCli;
using attnlab::tests::runProcess;

namespace {

const QString kCheck = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/app/health_check.py");

const QStringList kLines = {
    "the cat watched the river near the harbour .",
    "a dog admired a bright star .",
    "our prince , the old teacher and a young girl remembered the quiet village near the "
    "mountains .",
    "the cat .",
};

}  // namespace

class TestCliHealth : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;

  QString healthFolder(int step) const {
    return m_run + "/analysis/health-step-" + QString::number(step);
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("corpus.txt"),
        QByteArray::fromStdString(attnlab::tests::regularCorpusText(300))));
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("small.toml"),
        attnlab::tests::smallRunToml("health", m_dir.filePath("corpus.txt"), 10, 5)));
    m_run = m_dir.filePath("run");
    const auto r =
        runCli({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", m_run, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
  }

  void helpNamesTheCommandAndItsOptions() {
    auto r = runCli({"--help"});
    QVERIFY2(r.out.contains("health"), qPrintable(r.out));
    r = runCli({"health", "--help"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    for (const char* option : {"--step", "--text", "--out", "--sink-epsilon", "--collapse-nats"})
      QVERIFY2(r.out.contains(option), qPrintable(option + ("\n" + r.out)));
  }

  void logSeriesMatchSnapshotsAndCheckpoints() {
    const auto check =
        runProcess(kPython, {kCheck, "log", m_run + "/run.h5", m_run + "/checkpoints"});
    QVERIFY2(check.exitCode == 0 && check.out.contains("ok:") &&
                 check.out.contains("against checkpoints [5, 10]"),
             qPrintable(check.out + check.err));

    // A perturbed logged value fails, named.
    const QString copy = m_dir.filePath("perturbed-run.h5");
    QVERIFY(QFile::copy(m_run + "/run.h5", copy));
    QCOMPARE(runProcess(kPython, {kCheck, "perturb-h5", copy, "logit_max"}).exitCode, 0);
    const auto bad = runProcess(kPython, {kCheck, "log", copy, m_run + "/checkpoints"});
    QVERIFY2(
        bad.exitCode == 1 && bad.out.contains("logit_max step 10") && bad.out.contains("MISMATCH"),
        qPrintable(bad.out + bad.err));
  }

  void reportOnTheValidationSplit() {
    const auto r = runCli({"health", m_run, "--step", "5", "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("health of ") && r.out.contains("at step 5") &&
                 r.out.contains("layer 1: entropy") && r.out.contains("sink rate"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("wrote 4 files to " + healthFolder(5) +
                            ": health.csv, health.json, health.md, health_layers.csv"),
             qPrintable(r.out));
    for (const char* name : {"health.json", "health.csv", "health_layers.csv", "health.md"})
      QVERIFY2(QFileInfo::exists(healthFolder(5) + "/" + name), name);
    QVERIFY(QDir(healthFolder(5)).entryList({"*.tmp*"}, QDir::Files | QDir::Hidden).isEmpty());
    // The weights' spectral norms are those the run logged at that step (same weights, same
    // power iteration); the evaluation is the validation split with the run's settings.
    const QString same =
        "import h5py,json,sys,numpy as np\n"
        "r=json.load(open(sys.argv[1]))\n"
        "f=h5py.File(sys.argv[2],'r')\n"
        "g=f['series/health/spectral_norm']\n"
        "row=g['value'][list(g['step'][()]).index(5)]\n"
        "assert np.allclose(r['spectral_norm'],row,rtol=1e-6,atol=0), (r['spectral_norm'],row)\n"
        "assert r['evaluation']['kind']=='validation' and r['run']['step']==5, r['evaluation']\n"
        "assert r['settings']['sink_epsilon']==0.3 and r['settings']['collapse_nats']==0.5\n"
        "assert r['available_steps']==[5,10] and r['classes'][0]=='first'\n"
        "print('ok')\n";
    const auto py =
        runProcess(kPython, {"-c", same, healthFolder(5) + "/health.json", m_run + "/run.h5"});
    QVERIFY2(py.exitCode == 0 && py.out.startsWith("ok"), qPrintable(py.out + py.err));
  }

  void analyzeIncludesTheHealthReport() {
    // analyze --health: the analysis, then the health report of the same checkpoint over the
    // same evaluation set, equal to what `health` alone writes there.
    const QString text = m_dir.filePath("analyze-health.txt");
    QVERIFY(attnlab::tests::writeBytes(text, "the cat sat .\na dog ran to the river .\n"));
    const QString alone = m_dir.filePath("health-alone");
    auto r = runCli({"health", m_run, "--step", "10", "--text", text, "--out", alone, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    r = runCli({"analyze", m_run, "--step", "10", "--text", text, "--health", "--no-lens",
                "--no-snapshots", "--plain"});
    QVERIFY2(r.exitCode == 0 && r.out.contains("analysed ") && r.out.contains("health of "),
             qPrintable(r.out + r.err));
    const QString compare =
        "import json,sys\n"
        "a=json.load(open(sys.argv[1]));b=json.load(open(sys.argv[2]))\n"
        "for k in ['entropy_min','logit_max','spectral_norm','massive_ratio','class_mass']:\n"
        "  assert a[k]==b[k],k\n"
        "assert a['evaluation']['kind']=='text' and a['run']['step']==10\n"
        "print('ok')\n";
    const auto py = runProcess(
        kPython, {"-c", compare, healthFolder(10) + "/health.json", alone + "/health.json"});
    QVERIFY2(py.exitCode == 0 && py.out.startsWith("ok"), qPrintable(py.out + py.err));
    r = runCli({"analyze", "--help"});
    QVERIFY2(r.out.contains("--health"), qPrintable(r.out));
    // The slots after this one check that refused requests leave no report at step 10.
    QVERIFY(QDir(healthFolder(10)).removeRecursively());
  }

  void reportOnATextFileMatchesTheCapturesRecomputed() {
    const QString text = m_dir.filePath("lines.txt");
    QVERIFY(attnlab::tests::writeBytes(text, (kLines.join('\n') + '\n').toUtf8()));
    const QString out = m_dir.filePath("text-report");
    // Two batches (3 + 1 sequences), padded to their longest line: the same as one each.
    const auto r = runCli({"health", m_run, "--text", text, "--out", out, "--batch-size", "3",
                           "--sink-epsilon", "0.25", "--collapse-nats", "0.6", "--plain"});
    QVERIFY2(r.exitCode == 0 && r.out.contains("4 sequences"), qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("wrote 4 files to " + out), qPrintable(r.out));
    QStringList args = {kCheck, "text", out + "/health.json"};
    for (int i = 0; i < kLines.size(); ++i) {
      const QString capture = m_dir.filePath(QString("line-%1.h5").arg(i));
      const auto c = runCli({"inspect", m_run, "--text", kLines[i], "--capture",
                             "blocks.*.attn.pattern,blocks.*.attn.scores,blocks.*.resid_post",
                             "--out", capture});
      QVERIFY2(c.exitCode == 0, qPrintable(c.out + c.err));
      args << capture;
    }
    const auto check = runProcess(kPython, args);
    QVERIFY2(check.exitCode == 0 && check.out.contains("ok: 4 sequences"),
             qPrintable(check.out + check.err));

    // Negative controls: a perturbed value in the report fails, naming the quantity.
    for (const char* key : {"entropy_mean", "massive_ratio", "class_mass", "spectral_norm"}) {
      const QString copy = m_dir.filePath(QString("perturbed-%1.json").arg(key));
      QFile::remove(copy);
      QVERIFY(QFile::copy(out + "/health.json", copy));
      QCOMPARE(runProcess(kPython, {kCheck, "perturb-json", copy, key}).exitCode, 0);
      QStringList bad = args;
      bad[2] = copy;
      const auto failed = runProcess(kPython, bad);
      QVERIFY2(failed.exitCode == 1 && failed.out.contains(QString(key) + " (text)") &&
                   failed.out.contains("MISMATCH"),
               qPrintable(QString(key) + "\n" + failed.out + failed.err));
    }
  }

  void rotaryRunReportsTheLargestNormOverOffsets() {
    // ModernBERT's layout on the small run: global, windowed (4 keys either side), global;
    // bases 160 and 10. The report's rotary spectral norms against numpy's SVD of the form at
    // every offset; none for the learned-position run above.
    const QString run = m_dir.filePath("rope");
    QStringList args = {"train",     "--config", m_dir.filePath("small.toml"),
                        "--run-dir", run,        "--plain"};
    for (const char* set :
         {"model.layers=3", "model.position=rope", "model.position_embeddings=false",
          "model.rope_theta=160", "model.rope_theta_local=10", "model.attention_window=8",
          "model.global_every=2", "schedule.steps=5"})
      args << "--set" << set;
    auto r = runCli(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    const QString text = m_dir.filePath("rope-lines.txt");
    QVERIFY(attnlab::tests::writeBytes(text, (kLines.join('\n') + '\n').toUtf8()));
    const QString out = m_dir.filePath("rope-report");
    r = runCli({"health", run, "--text", text, "--out", out, "--plain"});
    QVERIFY2(r.exitCode == 0 && r.out.contains("rotary: spectral norm up to") &&
                 r.out.contains("over offsets +-4 (base 10)"),
             qPrintable(r.out + r.err));
    const auto check = runProcess(kPython, {kCheck, "rotary", out + "/health.json"});
    QVERIFY2(check.exitCode == 0 && check.out.contains("ok: rotary spectral norms of 3 layers"),
             qPrintable(check.out + check.err));
    QFile md(out + "/health.md");
    QVERIFY(md.open(QIODevice::ReadOnly));
    QVERIFY(md.readAll().contains("## Rotary positions"));
    QFile csv(out + "/health.csv");
    QVERIFY(csv.open(QIODevice::ReadOnly));
    QVERIFY(csv.readLine().trimmed().endsWith("spectral_norm_rotary,spectral_norm_rotary_offset"));

    // A perturbed norm fails, named; a report without rotary positions has none.
    const QString copy = m_dir.filePath("perturbed-rotary.json");
    QVERIFY(QFile::copy(out + "/health.json", copy));
    QCOMPARE(
        runProcess(kPython, {kCheck, "perturb-json", copy, "spectral_norm_rotary.norm"}).exitCode,
        0);
    const auto bad = runProcess(kPython, {kCheck, "rotary", copy});
    QVERIFY2(bad.exitCode == 1 && bad.out.contains("spectral_norm_rotary: MISMATCH"),
             qPrintable(bad.out + bad.err));
    QFile plain(healthFolder(5) + "/health.json");
    QVERIFY(plain.open(QIODevice::ReadOnly));
    QVERIFY(!plain.readAll().contains("spectral_norm_rotary"));
  }

  void modelFolderWithoutMlmHead() {
    // A BertModel saved without its MLM head: health needs none. Its report goes to the
    // model's work folder (under the test's XDG_DATA_HOME), never into the read-only folder.
    const QString model = attnlab::tests::readOnlyCopy(
        QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/fixtures/hf-bertmodel"), m_dir.filePath("bert"));
    QVERIFY(!model.isEmpty());
    qputenv("XDG_DATA_HOME", m_dir.filePath("data-home").toUtf8());
    const QString text = m_dir.filePath("bert-lines.txt");
    QVERIFY(attnlab::tests::writeBytes(text, (kLines.mid(0, 2).join('\n') + '\n').toUtf8()));
    const auto r = runCli({"health", model, "--text", text, "--plain"});
    QVERIFY2(r.exitCode == 0 && r.out.contains("at step 0") && r.out.contains("2 sequences"),
             qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("/analysis/health-step-0: health.csv"), qPrintable(r.out));
    QVERIFY(!QFileInfo::exists(model + "/analysis"));
    const QString folder = r.out.section("wrote 4 files to ", 1).section(':', 0, 0);
    QStringList args = {kCheck, "text", folder + "/health.json"};
    for (int i = 0; i < 2; ++i) {
      const QString capture = m_dir.filePath(QString("bert-line-%1.h5").arg(i));
      const auto c = runCli({"inspect", model, "--text", kLines[i], "--capture",
                             "blocks.*.attn.pattern,blocks.*.attn.scores,blocks.*.resid_post",
                             "--out", capture});
      QVERIFY2(c.exitCode == 0, qPrintable(c.out + c.err));
      args << capture;
    }
    const auto check = runProcess(kPython, args);
    QVERIFY2(check.exitCode == 0 && check.out.contains("ok: 2 sequences"),
             qPrintable(check.out + check.err));
  }

  void badInputIsNamedAndLeavesNoReport() {
    auto r = runCli({"health", m_run, "--step", "7"});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("step 7") && r.err.contains("5, 10"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(healthFolder(7)));

    const QString missing = m_dir.filePath("no-such-lines.txt");
    r = runCli({"health", m_run, "--text", missing});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains(missing) && r.err.contains("no such text file"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(healthFolder(10)));

    const QString out = m_dir.filePath("refused-report");
    r = runCli({"health", m_run, "--text", missing, "--out", out});
    QVERIFY(r.exitCode != 0 && r.err.contains(missing));
    QVERIFY(!QFileInfo::exists(out));

    const QString empty = m_dir.filePath("empty.txt");
    QVERIFY(attnlab::tests::writeBytes(empty, QByteArray()));
    r = runCli({"health", m_run, "--text", empty, "--out", out});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains(empty) && r.err.contains("is empty"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));

    // Blank lines only: refused after the folder was settled; the folder made is removed.
    const QString blank = m_dir.filePath("blank.txt");
    QVERIFY(attnlab::tests::writeBytes(blank, QByteArray("\n   \n\t\n")));
    r = runCli({"health", m_run, "--text", blank, "--out", out});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains(blank) && r.err.contains("no usable line"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));

    r = runCli({"health", m_run, "--sink-epsilon", "2", "--out", out});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("--sink-epsilon") && r.err.contains("between 0 and 1"),
             qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
    QVERIFY(!QFileInfo::exists(healthFolder(10)));
  }
};

QTEST_GUILESS_MAIN(TestCliHealth)
#include "test_cli_health.moc"
