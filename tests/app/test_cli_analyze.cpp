// `attnlab-cli analyze` and `probe coref` as a user runs them: a trained run in, reports
// out (JSON read back by Python's json module), clear errors and exit 1 on bad input.
#include "tests/support/cli_process.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using attnlab::tests::kPython;
using attnlab::tests::runCli;
using attnlab::tests::runProcess;

class TestCliAnalyze : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("corpus.txt"),
        QByteArray::fromStdString(attnlab::tests::regularCorpusText(400))));
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("small.toml"),
        attnlab::tests::smallRunToml("probed", m_dir.filePath("corpus.txt"), 4, 2)));
    m_run = m_dir.filePath("run");
    const auto r = runCli({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", m_run});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
  }

  void analyzeWritesReportsPythonReads() {
    const QString out = m_dir.filePath("analysis");
    const auto r = runCli({"analyze", m_run, "--out", out, "--pairwise", "4"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("at step 4"), qPrintable(r.out));
    QVERIFY2(r.err.contains("evaluation set"), qPrintable(r.err));  // progress on stderr
    for (const char* f : {"analysis.json", "analysis.md", "entropy_heads.csv",
                          "jsd_adjacent_layers.csv", "jsd_pairwise_heads.csv", "head_summaries.csv",
                          "guidance_conformity.csv", "over_training.csv"}) {
      QVERIFY2(QFile::exists(out + "/" + f), f);
    }
    // Another reader: Python's json module sees a complete, consistent report.
    const QString script =
        "import json,sys\n"
        "d=json.load(open(sys.argv[1]))\n"
        "assert d['format']=='attnlab-analysis', d['format']\n"
        "assert d['run']['step']==4\n"
        "assert d['units']=={**d['units'],'entropy':'nats','jsd':'bits'}\n"
        "assert len(d['per_head'])==4\n"
        "assert len(d['pairwise_jsd']['values'])==16\n"
        "h=d['per_head'][2]['entropy']\n"
        "assert h['q1']<=h['median']<=h['q3'], h\n"
        "assert abs(sum(c for c in h['histogram']['counts'])-h['count'])==0\n"
        "print('ok', d['evaluation']['sequences'])\n";
    const auto py = runProcess(kPython, {"-c", script, out + "/analysis.json"});
    QVERIFY2(py.exitCode == 0 && py.out.startsWith("ok"), qPrintable(py.out + py.err));
  }

  void probeCorefWritesReports() {
    const QString out = m_dir.filePath("coref");
    const auto r =
        runCli({"probe", "coref", m_run, "--size", "30", "--distractor", "--out", out, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(" mentions in "), qPrintable(r.out));
    QVERIFY2(r.out.contains("baseline previous_word 0.0%"), qPrintable(r.out));
    for (const char* f : {"coref.json", "coref.md", "coref_accuracy.csv", "coref_baselines.csv"}) {
      QVERIFY2(QFile::exists(out + "/" + f), f);
    }
    const QString script =
        "import json,sys\n"
        "d=json.load(open(sys.argv[1]))\n"
        "assert d['format']=='attnlab-coref-probe'\n"
        "assert d['dataset']['items']+d['dataset']['skipped_count']==30, d['dataset']\n"
        "assert len(d['accuracy']['values'])==4\n"
        "assert d['best_head']['accuracy']==max(d['accuracy']['values'])\n"
        "print('ok')\n";
    const auto py = runProcess(kPython, {"-c", script, out + "/coref.json"});
    QVERIFY2(py.exitCode == 0 && py.out.startsWith("ok"), qPrintable(py.out + py.err));
  }

  // Lin et al.'s reflexive format: the reader's bad lines are counted and listed with
  // file:line in every report file.
  void probeCorefOnLinData() {
    const QString out = m_dir.filePath("coref-lin");
    const QString fixture =
        QStringLiteral(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/coref/lin_reflexives.tsv";
    const auto r =
        runCli({"probe", "coref", m_run, "--dataset", "lin:" + fixture, "--out", out, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("Lin et al.'s reflexive file " + fixture + ", 8 sentences"),
             qPrintable(r.out));
    const QString script =
        "import json,sys\n"
        "d=json.load(open(sys.argv[1]))['dataset']\n"
        "assert d['items']+d['skipped_count']==14, d\n"
        "w=[k['where'] for k in d['skipped']][:6]\n"
        "assert w==[sys.argv[2]+':'+str(n) for n in (4,7,10,12,13,15)], w\n"
        "assert d['skipped'][0]['reason'].startswith('has 2 tab-separated field(s)'), d\n"
        "print('ok')\n";
    const auto py = runProcess(kPython, {"-c", script, out + "/coref.json", fixture});
    QVERIFY2(py.exitCode == 0 && py.out.startsWith("ok"), qPrintable(py.out + py.err));
    QFile md(out + "/coref.md");
    QVERIFY(md.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(md.readAll()).contains(fixture + ":7`: reflexive index 'four'"));
    QVERIFY(QFile::exists(out + "/coref_skipped.csv"));
  }

  void badInput_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");  // must appear in stderr
    QTest::newRow("step without checkpoint") << QStringList{"analyze", "RUN", "--step", "3"}
                                             << "no checkpoint of step 3 (checkpoints: 2, 4)";
    QTest::newRow("not a run") << QStringList{"analyze", "/"} << "no checkpoint";
    QTest::newRow("unknown dataset")
        << QStringList{"probe", "coref", "RUN", "--dataset", "wikipedia"}
        << "synthetic, conll:PATH or lin:PATH";
    QTest::newRow("missing conll file")
        << QStringList{"probe", "coref", "RUN", "--dataset", "conll:/nonexistent/dev.conll"}
        << "/nonexistent/dev.conll";
    QTest::newRow("missing lin file")
        << QStringList{"probe", "coref", "RUN", "--dataset", "lin:/nonexistent/refl.1"}
        << "/nonexistent/refl.1: no such file";
    QTest::newRow("lin without a path")
        << QStringList{"probe", "coref", "RUN", "--dataset", "lin:"} << "lin: needs a path";
    QTest::newRow("bad jsd unit") << QStringList{"analyze", "RUN", "--jsd-unit", "dits"} << "dits";
  }
  void badInput() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    args.replaceInStrings("RUN", m_run);
    const auto r = runCli(args);
    QVERIFY2(r.exitCode != 0, qPrintable(r.out));
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
  }

  // A report folder that cannot be written fails with its name and exit 1.
  void unwritableOutputIsReported() {
    const auto r = runCli({"analyze", m_run, "--out", "/proc/attnlab-report"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("/proc/attnlab-report"), qPrintable(r.err));
  }

 private:
  QTemporaryDir m_dir;
  QString m_run;
};

QTEST_GUILESS_MAIN(TestCliAnalyze)
#include "test_cli_analyze.moc"
