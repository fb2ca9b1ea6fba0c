// Inspect tab, side by side and ASA, on real runs trained by attnlab-cli (checkpoints at steps
// 4 and 8): a plain tiny run and the same with ASA on (`--set attention.asa.enabled=true`).
// "Compare with" chosen with the keyboard shows the other checkpoint, or the other selected
// run, beside the enlarged head; both heads' cells equal `attnlab-cli inspect` at their
// checkpoints (read by h5py) and both heatmaps draw on one colour range, the range of the two
// matrices together. The ASA toggle of the ASA run shows the selected layer's keep-mask,
// equal to the inspection file's /asa_masks; beside a run without ASA the note says that run
// has no keep-mask.
#include "app/gui/panels/inspector_panel.h"
#include "core/config/config_loader.h"
#include "tests/app/inspector_test_support.h"
#include "tests/support/tiny_run_setup.h"
#include "widgets/plots/attention_heatmap.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>

using namespace attnlab;

namespace {

const QString kText = QStringLiteral("the dog that the cat saw sat on the mat .");

QJsonArray headOf(const QString& h5, int layer, int head) {
  return tests::inspectDataset(h5, QStringLiteral("probabilities"))[layer]
      .toArray()[head]
      .toArray();
}

// The range of two matrices together, as one colour scale must span.
std::pair<double, double> jointRange(const widgets::Matrix& a, const widgets::Matrix& b) {
  const auto [aLo, aHi] = std::minmax_element(a.values.begin(), a.values.end());
  const auto [bLo, bHi] = std::minmax_element(b.values.begin(), b.values.end());
  return {std::min(*aLo, *bLo), std::max(*aHi, *bHi)};
}

}  // namespace

class TestInspectorCompare : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run, m_asaRun;

  std::unique_ptr<app::InspectorPanel> openPanel(const QList<app::RunSession*>& runs) {
    auto panel = std::make_unique<app::InspectorPanel>();
    panel->resize(1400, 700);
    panel->show();
    if (!QTest::qWaitForWindowExposed(panel.get())) return nullptr;
    panel->setRuns(runs);
    panel->inspect(kText);
    return panel;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const core::RunConfig config = tests::prepareTinyRun(m_dir.path().toStdString());
    const QString toml = m_dir.filePath("tiny.toml");
    std::ofstream(toml.toStdString()) << core::toToml(config);
    m_run = m_dir.filePath("plain");
    m_asaRun = m_dir.filePath("asa");
    auto r = tests::runCli({"train", "--config", toml, "--run-dir", m_run, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    r = tests::runCli({"train", "--config", toml, "--run-dir", m_asaRun, "--plain", "--set",
                       "attention.asa.enabled=true"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
  }

  void sideBySideCheckpointsShareOneScale() {
    app::RunSession run(m_run, Qt::red);
    tests::addCheckpoints(run, m_run);
    auto panel = openPanel({&run});
    QVERIFY(panel);
    QTRY_VERIFY_WITH_TIMEOUT(panel->frame() && panel->frame()->text == kText, 30000);
    QCOMPARE(panel->frame()->step, 8);
    QVERIFY(!panel->compareHeatmap()->isVisible());
    panel->selectHead(1, 0);

    // off, step 4, step 8: one Down chooses step 4.
    auto* combo = panel->findChild<QComboBox*>("inspectCompare");
    QCOMPARE(combo->count(), 3);
    QSignalSpy compared(panel.get(), &app::InspectorPanel::compared);
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(combo->currentText(), QStringLiteral("checkpoint at step 4"));
    QVERIFY(compared.wait(30000));
    QCOMPARE(compared.first().at(0).toLongLong(), 4);
    QVERIFY(panel->compareHeatmap()->isVisible());

    const QString at8 = m_dir.filePath("plain-8.h5"), at4 = m_dir.filePath("plain-4.h5");
    QVERIFY(tests::cliInspect(tests::checkpointFile(m_run, 8), kText, at8));
    QVERIFY(tests::cliInspect(tests::checkpointFile(m_run, 4), kText, at4));
    const widgets::Matrix& left = panel->heatmap()->matrix();
    const widgets::Matrix& right = panel->compareHeatmap()->matrix();
    QVERIFY(tests::sameCells(headOf(at8, 1, 0), left));
    QVERIFY(tests::sameCells(headOf(at4, 1, 0), right));
    QVERIFY(left.values != right.values);  // two checkpoints, two different heads

    // One colour scale: equal ranges, spanning both matrices.
    const auto [lo, hi] = jointRange(left, right);
    QCOMPARE(panel->heatmap()->colourLower(), panel->compareHeatmap()->colourLower());
    QCOMPARE(panel->heatmap()->colourUpper(), panel->compareHeatmap()->colourUpper());
    QCOMPARE(panel->heatmap()->colourLower(), lo);
    QCOMPARE(panel->heatmap()->colourUpper(), hi);
    const QString note = panel->findChild<QLabel*>("inspectCompareStatus")->text();
    QVERIFY2(note.contains("one colour scale") && note.contains("step 4"), qPrintable(note));
    tests::saveShot(panel.get(), QStringLiteral("inspect-compare-checkpoints"));

    // Another head keeps both sides on one scale.
    panel->selectHead(0, 1);
    QCOMPARE(panel->heatmap()->colourUpper(), panel->compareHeatmap()->colourUpper());
    QVERIFY(tests::sameCells(headOf(at4, 0, 1), panel->compareHeatmap()->matrix()));

    // Off again (Home): the second view goes.
    QTest::keyClick(combo, Qt::Key_Home);
    QVERIFY(!panel->compareHeatmap()->isVisible());
  }

  void sideBySideRunsShareOneScale() {
    app::RunSession run(m_run, Qt::red), asa(m_asaRun, Qt::blue);
    tests::addCheckpoints(run, m_run);
    tests::addCheckpoints(asa, m_asaRun);
    auto panel = openPanel({&run, &asa});
    QVERIFY(panel);
    QTRY_VERIFY_WITH_TIMEOUT(panel->frame() && panel->frame()->text == kText, 30000);
    auto* combo = panel->findChild<QComboBox*>("inspectCompare");
    QSignalSpy compared(panel.get(), &app::InspectorPanel::compared);
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_End);  // the last entry: the second selected run
    QCOMPARE(combo->currentText(), QStringLiteral("run asa"));
    QVERIFY(compared.wait(30000));
    QCOMPARE(panel->compareFrame()->checkpoint, tests::checkpointFile(m_asaRun, 8));

    const QString plain = m_dir.filePath("runs-plain.h5"), other = m_dir.filePath("runs-asa.h5");
    QVERIFY(tests::cliInspect(tests::checkpointFile(m_run, 8), kText, plain));
    QVERIFY(tests::cliInspect(tests::checkpointFile(m_asaRun, 8), kText, other));
    QVERIFY(tests::sameCells(headOf(plain, 0, 0), panel->heatmap()->matrix()));
    QVERIFY(tests::sameCells(headOf(other, 0, 0), panel->compareHeatmap()->matrix()));
    const auto [lo, hi] = jointRange(panel->heatmap()->matrix(), panel->compareHeatmap()->matrix());
    QCOMPARE(panel->heatmap()->colourLower(), lo);
    QCOMPARE(panel->compareHeatmap()->colourLower(), lo);
    QCOMPARE(panel->heatmap()->colourUpper(), hi);
    QCOMPARE(panel->compareHeatmap()->colourUpper(), hi);
    QVERIFY(panel->findChild<QLabel*>("inspectCompareStatus")->text().contains("run asa, step 8"));
    tests::saveShot(panel.get(), QStringLiteral("inspect-compare-runs"));
  }

  void asaToggleShowsTheKeepMask() {
    app::RunSession asa(m_asaRun, Qt::blue), plain(m_run, Qt::red);
    tests::addCheckpoints(asa, m_asaRun);
    tests::addCheckpoints(plain, m_run);
    auto panel = openPanel({&asa, &plain});
    QVERIFY(panel);
    QTRY_VERIFY_WITH_TIMEOUT(panel->frame() && panel->frame()->text == kText, 30000);
    QVERIFY(panel->frame()->hasAsa);
    QVERIFY(!panel->frame()->asaMasks);  // not captured until asked for (a second pass)
    auto* box = panel->findChild<QCheckBox*>("inspectAsaMask");
    QVERIFY(box->isEnabled());
    QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(8, box->height() / 2));
    QVERIFY(box->isChecked());
    QTRY_VERIFY_WITH_TIMEOUT(panel->frame()->asaMasks != nullptr, 30000);
    panel->selectHead(1, 1);

    const QString out = m_dir.filePath("asa-8.h5");
    QVERIFY(tests::cliInspect(tests::checkpointFile(m_asaRun, 8), kText, out));
    const QJsonArray masks = tests::inspectDataset(out, QStringLiteral("asa_masks"));
    QCOMPARE(int(masks.size()), panel->frame()->layers);
    QVERIFY(tests::sameCells(masks[1].toArray(), panel->heatmap()->matrix()));
    // A keep-mask holds 0 and 1 only.
    const auto& cells = panel->heatmap()->matrix().values;
    QVERIFY(
        std::all_of(cells.begin(), cells.end(), [](float v) { return v == 0.0f || v == 1.0f; }));
    tests::saveShot(panel.get(), QStringLiteral("inspect-asa-mask"));
    // Beside a run without ASA: no keep-mask to draw there, and the note says so.
    auto* combo = panel->findChild<QComboBox*>("inspectCompare");
    QSignalSpy compared(panel.get(), &app::InspectorPanel::compared);
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_End);
    QCOMPARE(combo->currentText(), QStringLiteral("run plain"));
    QVERIFY(compared.wait(30000));
    QVERIFY(!panel->compareHeatmap()->isVisible());
    const QString note = panel->findChild<QLabel*>("inspectCompareStatus")->text();
    QVERIFY2(note.contains("run plain, step 8 has no ASA keep-mask"), qPrintable(note));
    // Off again: the attention of the selected head, the plain run's beside it.
    QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(8, box->height() / 2));
    QVERIFY(tests::sameCells(headOf(out, 1, 1), panel->heatmap()->matrix()));
    QVERIFY(panel->compareHeatmap()->isVisible());
  }
};

QTEST_MAIN(TestInspectorCompare)
#include "test_inspector_compare.moc"
