// `attnlab-cli inspect --view weights,rollout,norms,lens` on real trained runs (Post-LN and
// Pre-LN), checked by tests/app/inspect_views_reference.py: the model recomputed from the
// checkpoint's tensors in numpy float64 (h5py), every layer's weights, the three norms of
// Kobayashi et al. as explicit vector sums, the rollout of Abnar & Zuidema and the logit lens.
// The checker must fail on a perturbed file (a negative control of the check itself).
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
    QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/app/inspect_views_reference.py");
const QString kText = QStringLiteral("the cat sat on the mat because it was warm");

}  // namespace

class TestCliInspectViews : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  QString train(const QString& name, const QStringList& set) {
    QStringList args = {"train", "--config", m_dir.filePath("small.toml"), "--run-dir",
                        m_dir.filePath(name)};
    for (const auto& s : set) args << "--set" << s;
    const auto r = runCli(args);
    if (r.exitCode != 0) qWarning().noquote() << r.out << r.err;
    return m_dir.filePath(name);
  }

  /// The run's only checkpoint file (the reference reads its tensors).
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
        attnlab::tests::smallRunToml("views", m_dir.filePath("corpus.txt"), 6, 6)));
  }

  void everyViewMatchesTheModelRecomputed_data() {
    QTest::addColumn<QString>("norm");
    QTest::newRow("Post-LN (BERT)") << "post";
    QTest::newRow("Pre-LN (final LayerNorm before the lens)") << "pre";
  }
  void everyViewMatchesTheModelRecomputed() {
    QFETCH(QString, norm);
    const QString run = train("run-" + norm, {"model.norm=" + norm});
    const QString checkpoint = checkpointOf(run);
    QVERIFY2(!checkpoint.isEmpty(), qPrintable(run));
    const QString out = m_dir.filePath("views-" + norm + ".h5");
    const auto r = runCli({"inspect", run, "--text", kText, "--out", out, "--view",
                           "weights,rollout,norms,lens", "--mask", "2", "--top", "3"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    const auto check = runProcess(kPython, {kReference, checkpoint, out});
    QVERIFY2(check.exitCode == 0, qPrintable(check.out + check.err));
    QVERIFY2(check.out.contains("ok: 2 layers"), qPrintable(check.out));

    // The checker fails on a perturbed head norm: it can tell.
    const QString perturb =
        "import h5py,sys\n"
        "f=h5py.File(sys.argv[1],'r+')\n"
        "d=f['norms/head']; v=d[()]; v[1,0,3,2]+=0.01; d[...]=v\n";
    QVERIFY(runProcess(kPython, {"-c", perturb, out}).exitCode == 0);
    const auto bad = runProcess(kPython, {kReference, checkpoint, out});
    QVERIFY2(bad.exitCode == 1 && bad.out.contains("norms/head: MISMATCH"), qPrintable(bad.out));
  }

  void eachViewWritesOnlyItsDatasets() {
    const QString run = train("run-views", {});
    const QString out = m_dir.filePath("norms-only.h5");
    const auto r = runCli({"inspect", run, "--text", kText, "--out", out, "--view", "norms"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    const QString list =
        "import h5py,sys\n"
        "f=h5py.File(sys.argv[1],'r'); names=[]\n"
        "f.visit(names.append); print(' '.join(sorted(names)))\n";
    const auto py = runProcess(kPython, {"-c", list, out});
    QCOMPARE(py.out.trimmed(), QStringLiteral("config norms norms/head norms/layer norms/value "
                                              "token_ids tokens"));
  }

  void anUnknownViewIsRefusedByName() {
    const auto r = runCli({"inspect", m_dir.filePath("run-views"), "--text", kText, "--out",
                           m_dir.filePath("x.h5"), "--view", "weights,flow"});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("flow"), qPrintable(r.err));
    QVERIFY(!QFile::exists(m_dir.filePath("x.h5")));
  }
};

QTEST_GUILESS_MAIN(TestCliInspectViews)
#include "test_cli_inspect_views.moc"
