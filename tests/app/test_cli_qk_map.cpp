// `attnlab-cli qk-map` (AttentionViz's query-key map: normalisation and joint PCA) on a real
// tiny run, checked by tests/app/qk_map_check.py: the queries and keys recomputed from the
// checkpoint's tensors in numpy float64, the normalisation re-derived from query_key_map.h's
// description, PCA by numpy.linalg.eigh. The checker must fail on a perturbed file (a negative
// control of the check itself); the file's layout is as docs/run-log.md gives it; a layer or
// head outside the model, a missing --head and a file that cannot be written are refused
// with messages that say why, leaving no file behind.
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

const QString kCheck = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/app/qk_map_check.py");
const QStringList kSentences = {"the cat watched the river near the harbour .",
                                "a dog admired a bright star near the mountains .", "to be",
                                "our prince followed the quiet village near the harbour ."};

// The layout of docs/run-log.md ("Query-key map files"), for one head.
const QString kLayout =
    "import h5py,sys\n"
    "f=h5py.File(sys.argv[1],'r')\n"
    "a=f.attrs\n"
    "assert a['format']=='attnlab-qk-map' and a['format_version']==1, dict(a)\n"
    "assert a['projection']=='pca' and a['layer']==1 and a['head']==0, dict(a)\n"
    "assert a['step']==20 and a['checkpoint'].endswith('.h5'), dict(a)\n"
    "n=int(a['tokens'])\n"
    "assert f['coords'].shape==(2*n,2) and f['coords'].dtype=='float64'\n"
    "kind=f['kind'][()]\n"
    "assert kind.dtype=='uint8' and (kind[:n]==0).all() and (kind[n:]==1).all()\n"
    "for k in ('sequence','position','token_ids'):\n"
    "    assert f[k].dtype=='int64' and f[k].shape==(2*n,), k\n"
    "tokens=[t.decode() for t in f['tokens'][()]]\n"
    "sentences=[s.decode() for s in f['sentences'][()]]\n"
    "assert len(tokens)==2*n and tokens[0]=='<s>' and f['special'][0]==1\n"
    "assert '<pad>' not in tokens\n"
    "assert len(sentences)==4 and sentences[2]=='to be', sentences\n"
    "assert sentences[f['sequence'][n+5]].startswith('the cat'), sentences\n"
    "assert 0<a['explained']<=1 and a['scale']>0\n"
    "print('ok')\n";

}  // namespace

class TestCliQkMap : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;
  QString m_text;

  static QString checkpointOf(const QString& run) {
    const auto files = QDir(run + "/checkpoints").entryList({"step-*.h5"}, QDir::Files, QDir::Name);
    return files.isEmpty() ? QString() : run + "/checkpoints/" + files.last();
  }

  /// qk-map over the sentences into `out` with `extra`; false (and a warning) on failure.
  bool qkMap(const QString& out, const QStringList& extra) {
    const auto r =
        runCli(QStringList{"qk-map", m_run, "--text", m_text, "--out", out, "--plain"} + extra);
    if (r.exitCode != 0) qWarning("%s", qPrintable(r.out + r.err));
    return r.exitCode == 0;
  }

  void expectChecked(const QString& file, const QString& heads) {
    const auto check = runProcess(kPython, {kCheck, checkpointOf(m_run), file});
    QVERIFY2(check.exitCode == 0, qPrintable(check.out + check.err));
    QVERIFY2(check.out.contains("ok: 4 sequences") && check.out.contains(heads),
             qPrintable(check.out));
  }

  /// A refused command: exit status != 0, `message` in its error, no file (nor temporary).
  void expectRefused(const QStringList& args, const QString& message) {
    const QString out = m_dir.filePath("refused.h5");
    const auto r = runCli(QStringList{"qk-map", m_run, "--text", m_text, "--out", out} + args);
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(!QFile::exists(out));
    QVERIFY(QDir(m_dir.path()).entryList({"refused.h5*"}).isEmpty());
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("corpus.txt"),
        QByteArray::fromStdString(attnlab::tests::regularCorpusText(400))));
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("small.toml"),
        attnlab::tests::smallRunToml("qk", m_dir.filePath("corpus.txt"), 20, 10)));
    m_text = m_dir.filePath("sentences.txt");
    QVERIFY(attnlab::tests::writeBytes(m_text, (kSentences.join('\n') + '\n').toUtf8()));
    m_run = m_dir.filePath("run");
    const auto r =
        runCli({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", m_run, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
  }

  void mapsMatchTheModelRecomputed() {
    const QString one = m_dir.filePath("layer1-head0.h5");
    QElapsedTimer timer;
    timer.start();
    QVERIFY(qkMap(one, {"--layer", "1", "--head", "0"}));
    qInfo("qk-map of one head: %lld ms", static_cast<long long>(timer.elapsed()));
    expectChecked(one, "1 heads");
    const auto layout = runProcess(kPython, {"-c", kLayout, one});
    QVERIFY2(layout.exitCode == 0 && layout.out.startsWith("ok"),
             qPrintable(layout.out + layout.err));

    const QString first = m_dir.filePath("layer0-head1.h5");
    QVERIFY(qkMap(first, {"--layer", "0", "--head", "1"}));
    expectChecked(first, "1 heads");
    const QString all = m_dir.filePath("layer1-all.h5");
    QVERIFY(qkMap(all, {"--layer", "1", "--all-heads"}));
    expectChecked(all, "2 heads");

    // The checker fails on a perturbed map: it can tell.
    const QString perturb =
        "import h5py,sys\n"
        "f=h5py.File(sys.argv[1],'r+')\n"
        "c=f['coords'][()]\n"
        "c[3,1]+=1e-3*abs(c[:,1]).max()\n"
        "f['coords'][...]=c\n";
    QVERIFY(runProcess(kPython, {"-c", perturb, one}).exitCode == 0);
    const auto bad = runProcess(kPython, {kCheck, checkpointOf(m_run), one});
    QVERIFY2(bad.exitCode == 1 && bad.out.contains("axis 1: MISMATCH"),
             qPrintable(bad.out + bad.err));
  }

  void validationSplitByDefault() {
    const QString out = m_dir.filePath("validation.h5");
    const auto r = runCli({"qk-map", m_run, "--layer", "0", "--head", "0", "--tokens", "100",
                           "--out", out, "--plain"});
    QVERIFY2(r.exitCode == 0 && r.out.contains("100 tokens"), qPrintable(r.out + r.err));
    const QString script =
        "import h5py,sys\n"
        "f=h5py.File(sys.argv[1],'r')\n"
        "assert f.attrs['tokens']==100 and f['coords'].shape==(200,2)\n"
        "assert f.attrs['evaluation'].startswith('validation split')\n"
        "print('ok')\n";
    const auto py = runProcess(kPython, {"-c", script, out});
    QVERIFY2(py.exitCode == 0 && py.out.startsWith("ok"), qPrintable(py.out + py.err));
  }

  void badRequestsAreRefused() {
    expectRefused({"--layer", "2", "--head", "0"},
                  "layer 2: out of range: the model has 2 layers x 2 heads");
    expectRefused({"--layer", "0", "--head", "2"},
                  "head 2: out of range: the model has 2 layers x 2 heads");
    expectRefused({"--layer", "0"}, "--head H, or --all-heads");
    const auto r = runCli({"qk-map", m_run, "--layer", "0", "--head", "0", "--out",
                           m_dir.filePath("missing/folder/map.h5")});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("does not exist"), qPrintable(r.err));
    QVERIFY(!QDir(m_dir.filePath("missing")).exists());
  }
};

QTEST_GUILESS_MAIN(TestCliQkMap)
#include "test_cli_qk_map.moc"
