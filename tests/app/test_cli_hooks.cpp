// `attnlab-cli inspect --hooks` and `--capture PATTERN --out FILE.h5` (named hook points,
// docs/hook-points.md) on a real tiny run: the listing names every hook point with its
// symbolic shape; the written activations are read back with h5py and checked by
// tests/app/activations_check.py against the encoder recomputed in numpy float64 from the
// checkpoint's tensors; the checker fails on a perturbed file; a pattern that matches nothing
// and a missing --text are refused with messages that say why, leaving no file behind.
#include "tests/support/cli_process.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using attnlab::tests::kPython;
using attnlab::tests::runCli;
using attnlab::tests::runProcess;

namespace {

const QString kCheck = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/app/activations_check.py");

}  // namespace

class TestCliHooks : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;

  QString checkpoint() const {
    const auto files =
        QDir(m_run + "/checkpoints").entryList({"step-*.h5"}, QDir::Files, QDir::Name);
    return files.isEmpty() ? QString() : m_run + "/checkpoints/" + files.last();
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("corpus.txt"),
        QByteArray::fromStdString(attnlab::tests::regularCorpusText(300))));
    QVERIFY(attnlab::tests::writeBytes(
        m_dir.filePath("small.toml"),
        attnlab::tests::smallRunToml("hooks", m_dir.filePath("corpus.txt"), 10, 10)));
    m_run = m_dir.filePath("run");
    const auto r =
        runCli({"train", "--config", m_dir.filePath("small.toml"), "--run-dir", m_run, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
  }

  void listsEveryHookPointWithItsShape() {
    const auto r = runCli({"inspect", m_run, "--hooks"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    // The small run: 2 layers, hidden 32, 2 heads (d = 16), FFN 64, 50 pieces.
    const QStringList expected = {"embed [B, T, 32]",
                                  "blocks.0.resid_pre [B, T, 32]",
                                  "blocks.0.attn.q [B, 2, T, 16]",
                                  "blocks.1.attn.scores [B, 2, T, T]",
                                  "blocks.1.attn.pattern [B, 2, T, T]",
                                  "blocks.0.attn.z [B, 2, T, 16]",
                                  "blocks.1.attn.value_gram [B, T, 2, 2]",
                                  "blocks.1.resid_post [B, T, 32]",
                                  "encoder.out [B, T, 32]",
                                  "mlm.logits [N, 50]"};
    QString flat = r.out;
    flat.replace(QRegularExpression(" +"), " ");
    for (const auto& line : expected)
      QVERIFY2(flat.contains(line), qPrintable(line + "\n" + r.out));
    QVERIFY2(!flat.contains("?"), qPrintable(r.out));  // every axis named or fixed
    QVERIFY(!flat.contains("asa.keep"));               // no ASA in this model
  }

  void capturedActivationsMatchTheModelRecomputed() {
    const QString out = m_dir.filePath("acts.h5");
    const auto r =
        runCli({"inspect", m_run, "--text", "the cat watched the river .", "--capture",
                "embed,blocks.*.attn.pattern", "--capture", "blocks.*.resid_post", "--out", out});
    QVERIFY2(r.exitCode == 0 && r.out.contains("5 hook points"), qPrintable(r.out + r.err));
    const auto check = runProcess(kPython, {kCheck, checkpoint(), out});
    QVERIFY2(check.exitCode == 0 && check.out.contains("ok: 5 hook points, 5 recomputed"),
             qPrintable(check.out + check.err));
    const QString layout =
        "import h5py,sys\n"
        "f=h5py.File(sys.argv[1],'r')\n"
        "names=[n.decode() for n in f['names'][()]]\n"
        "assert names==['embed','blocks.0.attn.pattern','blocks.0.resid_post',"
        "'blocks.1.attn.pattern','blocks.1.resid_post'], names\n"
        "p=f['activations/blocks.1.attn.pattern'][()]\n"
        "assert p.shape==(1,2,f['token_ids'].shape[0],f['token_ids'].shape[0]), p.shape\n"
        "assert p.dtype=='float32' and abs(p.sum(-1)-1).max()<1e-5\n"
        "assert [t.decode() for t in f['tokens'][()]][0]=='<s>'\n"
        "assert [p.decode() for p in f['patterns'][()]]==['embed','blocks.*.attn.pattern',"
        "'blocks.*.resid_post']\n"
        "print('ok')\n";
    const auto py = runProcess(kPython, {"-c", layout, out});
    QVERIFY2(py.exitCode == 0 && py.out.startsWith("ok"), qPrintable(py.out + py.err));

    // The checker fails on a perturbed activation: it can tell.
    const QString perturb =
        "import h5py,sys\n"
        "f=h5py.File(sys.argv[1],'r+')\n"
        "d=f['activations/blocks.0.resid_post']\n"
        "v=d[()]\n"
        "v[0,2,3]+=1e-3\n"
        "d[...]=v\n";
    QVERIFY(runProcess(kPython, {"-c", perturb, out}).exitCode == 0);
    const auto bad = runProcess(kPython, {kCheck, checkpoint(), out});
    QVERIFY2(bad.exitCode == 1 && bad.out.contains("blocks.0.resid_post: MISMATCH"),
             qPrintable(bad.out + bad.err));
  }

  void badRequestsAreRefused() {
    const QString out = m_dir.filePath("refused.h5");
    auto r = runCli(
        {"inspect", m_run, "--text", "the cat", "--capture", "blocks.*.asa.keep", "--out", out});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("no hook point of this model matches blocks.*.asa.keep") &&
                 r.err.contains("--hooks"),
             qPrintable(r.err));
    QVERIFY(QDir(m_dir.path()).entryList({"refused.h5*"}).isEmpty());
    r = runCli({"inspect", m_run, "--capture", "embed", "--out", out});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("--text and --out are required"), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestCliHooks)
#include "test_cli_hooks.moc"
