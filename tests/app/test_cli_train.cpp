// `attnlab-cli train` as a user runs it: bad input gives a clear message and a non-zero
// exit without losing what was written; Ctrl-C stops cleanly; h5py reads a live log.
#include "tests/support/cli_process.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

namespace {

using attnlab::tests::kCli;
using attnlab::tests::kPython;
using Run = attnlab::tests::ProcessResult;

Run run(const QStringList& args, int timeoutMs = 300000) {
  return attnlab::tests::runCli(args, timeoutMs);
}

/// python -c CODE ARGS... with the Python the cross-checks use (h5py reads the run logs).
Run python(const QStringList& codeAndArgs) {
  return attnlab::tests::runProcess(kPython, QStringList{"-c"} + codeAndArgs, 60000);
}

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

QByteArray regularCorpus() {
  return QByteArray::fromStdString(attnlab::tests::regularCorpusText(400));
}

}  // namespace

class TestCliTrain : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    writeFile(m_dir.filePath("corpus.txt"), regularCorpus());
    // A small, fast configuration on the corpus above.
    writeFile(m_dir.filePath("small.toml"),
              attnlab::tests::smallRunToml("small", m_dir.filePath("corpus.txt"), 6, 3));
  }

  void trainsAndWritesLogAndCheckpoints() {
    const QString dir = m_dir.filePath("ok");
    const Run r = run({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", dir});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY(r.out.contains("step 6/6"));
    QVERIFY(QFile::exists(dir + "/run.h5"));
    QVERIFY(QFile::exists(dir + "/config.toml"));
    QVERIFY(QFile::exists(dir + "/checkpoints/step-0000006.h5"));
    // h5py reads the closed log: the loss of every step it logged, the last at step 6.
    const Run py =
        python({"import h5py, sys; f = h5py.File(sys.argv[1], 'r'); "
                "s = f['scalars/train/loss']; "
                "print(len(s['value']), int(s['step'][-1]))",
                dir + "/run.h5"});
    const QString read = py.out.trimmed();
    QVERIFY2(read.endsWith(QStringLiteral(" 6")) && !read.startsWith(QStringLiteral("0 ")),
             qPrintable(read + py.err));
  }

  // --progress jsonl, read by Python's json module: every line one object with an event
  // and the human text; the steps' numbers typed; start (the log is open) and the summary.
  void jsonProgressIsOneObjectPerLine() {
    const QString dir = m_dir.filePath("jsonl");
    const Run r = run({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", dir,
                       "--progress", "jsonl"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    writeFile(m_dir.filePath("progress.jsonl"), r.out.toUtf8());
    const Run py =
        python({"import json, sys\n"
                "events = [json.loads(line) for line in open(sys.argv[1])]\n"
                "assert all(isinstance(e, dict) and 'event' in e and 'text' in e for e in events)\n"
                "steps = [e for e in events if e['event'] == 'step']\n"
                "assert steps[-1]['step'] == 6 and steps[-1]['total'] == 6, steps[-1]\n"
                "assert all(type(e['loss']) is float and type(e['step']) is int for e in steps)\n"
                "assert steps[-1]['text'].startswith('step 6/6 loss ')\n"
                "kinds = [e['kind'] for e in events if e['event'] == 'milestone']\n"
                "assert kinds.index('start') < kinds.index('finished'), kinds\n"
                "phases = [e['phase'] for e in events if e['event'] == 'phase']\n"
                "messages = [e['text'] for e in events if e['event'] == 'message']\n"
                "assert any(m.startswith('done: 6 steps') for m in messages), messages\n"
                "print(len(events), 'events;', ' '.join(kinds), ';', len(phases), 'phases')\n",
                m_dir.filePath("progress.jsonl")});
    QVERIFY2(py.exitCode == 0, qPrintable(py.out + py.err + r.out.left(2000)));
    qInfo("%s", qPrintable(py.out.trimmed()));
  }

  void badInput_data() {
    QTest::addColumn<QStringList>("sets");
    QTest::addColumn<QByteArray>("corpus");  // written to corpus.txt of a fresh folder
    QTest::addColumn<QString>("expected");   // must appear in stderr
    const QByteArray ok = regularCorpus();
    QTest::newRow("missing corpus") << QStringList{"corpus.paths=[\"/nonexistent/corpus.txt\"]"}
                                    << ok << "/nonexistent/corpus.txt";
    QTest::newRow("empty corpus") << QStringList{} << QByteArray() << "corpus";
    QTest::newRow("no valid lines")
        << QStringList{} << QByteArray("caf\xE9\n\xFF\xFE bad\n") << "corpus.txt:1";
    QTest::newRow("binary garbage")
        << QStringList{} << QByteArray("\x00\x01\x02\x03\xFF\x00garbage", 13) << "corpus.txt";
    QTest::newRow("vocabulary too large")
        << QStringList{"tokenizer.vocab_size=5000"} << ok << "vocabulary size 5000";
    QTest::newRow("wrong type") << QStringList{"model.layers=\"two\""} << ok << "model.layers";
    QTest::newRow("negative size")
        << QStringList{"model.hidden_size=-32"} << ok << "model.hidden_size";
    QTest::newRow("heads not dividing") << QStringList{"model.heads=3"} << ok << "model.heads";
    QTest::newRow("unknown key") << QStringList{"model.hiden_size=32"} << ok << "model.hidden_size";
  }
  void badInput() {
    QFETCH(QStringList, sets);
    QFETCH(QByteArray, corpus);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    writeFile(dir.filePath("corpus.txt"), corpus);
    QStringList args = {"train",
                        "--config",
                        m_dir.filePath("small.toml"),
                        "--run-dir",
                        dir.filePath("run"),
                        "--set",
                        "corpus.paths=[\"" + dir.filePath("corpus.txt") + "\"]"};
    for (const QString& s : sets) args << "--set" << s;
    const Run r = run(args);
    QVERIFY2(r.exitCode == 1, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(r.err)));
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QVERIFY2(r.err.contains("error"), qPrintable(r.err));
  }

  void unwritableRunDirectory() {
    const Run r =
        run({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", "/proc/attnlab-run"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("/proc/attnlab-run"), qPrintable(r.err));
  }

  void differentShapeKeepsTheCheckpoint() {
    const QString dir = m_dir.filePath("shape");
    QCOMPARE(run({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", dir}).exitCode,
             0);
    const QString ckpt = dir + "/checkpoints/step-0000006.h5";
    const QByteArray before = QFile(ckpt).exists() ? QByteArray("present") : QByteArray();
    const Run r = run({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", dir, "--set",
                       "model.ffn_size=48", "--set", "schedule.steps=9"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("different shape") && r.err.contains("model.ffn_size"),
             qPrintable(r.err));
    QCOMPARE(QFile(ckpt).exists() ? QByteArray("present") : QByteArray(), before);
  }

  void newerRunLogSchemaIsRefused() {
    const QString dir = m_dir.filePath("newer");
    QDir().mkpath(dir);
    QProcess py;
    py.start(
        kPython,
        {"-c",
         "import h5py,sys; f=h5py.File(sys.argv[1],'w'); f.attrs['schema_version']=99; f.close()",
         dir + "/run.h5"});
    QVERIFY(py.waitForFinished(60000) && py.exitCode() == 0);
    const qint64 size = QFileInfo(dir + "/run.h5").size();
    const Run r = run({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", dir});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("99"), qPrintable(r.err));
    QCOMPARE(QFileInfo(dir + "/run.h5").size(), size);  // the log is left as it was
  }

  // Ctrl-C finishes the step, writes a checkpoint and closes the log; h5py reads the log
  // while the run is writing it, and after.
  void interruptStopsCleanlyAndLiveLogIsReadable() {
    const QString dir = m_dir.filePath("interrupt");
    QProcess p;
    p.start(kCli, {"train", "--config", m_dir.filePath("small.toml"), "--run-dir", dir, "--set",
                   "schedule.steps=100000", "--set", "train.checkpoint_every=0", "--set",
                   "train.eval_every=0"});
    QVERIFY(p.waitForStarted());
    // Wait until some steps are logged.
    QString out;
    for (int i = 0; i < 600 && !out.contains("step 20/"); ++i) {
      p.waitForReadyRead(100);
      out += QString::fromUtf8(p.readAllStandardOutput());
    }
    QVERIFY2(out.contains("step 20/"), qPrintable(out + p.readAllStandardError()));
    QTest::qWait(1000);  // at least one flush period after those steps

    const Run reader =
        python({"import h5py,sys\n"
                "f=h5py.File(sys.argv[1],'r',libver='latest',swmr=True)\n"
                "d=f['scalars/train/loss/value']; d.refresh(); print(d.shape[0])",
                dir + "/run.h5"});
    const QString rows = reader.out.trimmed();
    QVERIFY2(reader.exitCode == 0 && rows.toInt() >= 10, qPrintable(rows + reader.err));

    ::kill(static_cast<pid_t>(p.processId()), SIGINT);
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 130);
    QDir checkpoints(dir + "/checkpoints");
    QVERIFY2(!checkpoints.entryList({"step-*.h5"}).isEmpty(), "a checkpoint was written on stop");
    const Run after =
        python({"import h5py,sys\n"
                "f=h5py.File(sys.argv[1],'r')\n"
                "print(b'stopped' in [k.rstrip(b'\\0') for k in f['events/kind'][:]])",
                dir + "/run.h5"});
    QCOMPARE(after.out.trimmed(), QStringLiteral("True"));
  }

 private:
  QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestCliTrain)
#include "test_cli_train.moc"
