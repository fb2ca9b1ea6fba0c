// Inspect tab on a real run: a tiny run trained by attnlab-cli (checkpoints at steps 4 and
// 8); a text typed into the tab and Enter give the layer x head grid and the enlarged head,
// whose cells equal `attnlab-cli inspect` on the same text and checkpoint (read back with
// h5py, independently of the app); moving the checkpoint slider follows the text to the
// other checkpoint; a text longer than the model takes is cut and the tab says so; a
// checkpoint that cannot be read gets a message naming it. A probe sentence and a line of a
// text file picked with the keyboard give the CLI's cells too; a file that cannot be read is
// named in the message; the guidance overlay marks the pattern's cells of a known sentence;
// the ASA toggle of a run without ASA is off with a tooltip that says why; the slider's
// neighbouring checkpoint is prefetched and shown from memory with the CLI's cells.
#include "app/gui/panels/inspector_panel.h"
#include "app/gui/panels/inspector_source_bar.h"
#include "core/config/config_loader.h"
#include "tests/app/inspector_test_support.h"
#include "tests/support/cli_process.h"
#include "tests/support/tiny_run_setup.h"
#include "widgets/plots/attention_heatmap.h"
#include "widgets/plots/head_grid.h"

#include <QCheckBox>
#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>

using namespace attnlab;

namespace {

QJsonArray probabilitiesOf(const QString& h5) {
  return tests::inspectDataset(h5, QStringLiteral("probabilities"));
}

using tests::addCheckpoints;

/// Presses Down on a combo box `times` times, as a person choosing an entry does (each
/// press activates the entry it moves to).
void pressDown(QComboBox* combo, int times) {
  combo->setFocus();
  for (int i = 0; i < times; ++i) QTest::keyClick(combo, Qt::Key_Down);
}

}  // namespace

class TestInspectorPanel : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const core::RunConfig config = tests::prepareTinyRun(m_dir.path().toStdString());
    const QString toml = m_dir.filePath("tiny.toml");
    std::ofstream(toml.toStdString()) << core::toToml(config);
    m_run = m_dir.filePath("run");
    const auto r = tests::runCli({"train", "--config", toml, "--run-dir", m_run, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
  }

  void inspectsATextAsTheCliDoes() {
    app::RunSession run(m_run, Qt::red);
    addCheckpoints(run, m_run);
    app::InspectorPanel panel;
    panel.resize(1100, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRuns({&run});
    auto* slider = panel.findChild<QSlider*>("inspectCheckpointSlider");
    QCOMPARE(slider->value(), 1);  // the newest checkpoint

    // Type a text and press Enter, as a person does.
    const QString text = QStringLiteral("the cat watched the river .");
    auto* edit = panel.findChild<QLineEdit*>("inspectText");
    edit->setFocus();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
    QSignalSpy inspected(&panel, &app::InspectorPanel::inspected);
    QTest::keyClick(edit, Qt::Key_Return);
    // The tab may first show its default text (inspected when a run with checkpoints is
    // selected while it is visible); wait for the typed one.
    QTRY_VERIFY_WITH_TIMEOUT(panel.frame() && panel.frame()->text == text, 30000);
    QCOMPARE(inspected.last().at(0).toLongLong(), 8);
    const app::InspectionFrame frame = *panel.frame();
    QCOMPARE(panel.headGrid()->layers(), frame.layers);
    QCOMPARE(panel.headGrid()->heads(), frame.heads);
    QCOMPARE(panel.heatmap()->queries(), frame.length);
    QVERIFY(frame.inspectMs > 0);
    QVERIFY(
        panel.findChild<QLabel*>("inspectStatus")
            ->text()
            .contains(
                QStringLiteral("(inspected in %1 s)").arg(frame.inspectMs / 1000.0, 0, 'f', 2)));

    // The same text and checkpoint through attnlab-cli inspect.
    const QString out = m_dir.filePath("inspect-8.h5");
    const auto r = tests::runCli({"inspect", m_run, "--text", text, "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QJsonArray cli = probabilitiesOf(out);
    QCOMPARE(int(cli.size()), frame.layers);
    panel.selectHead(1, 1);
    const widgets::Matrix shown = frame.head(1, 1);
    const QJsonArray rows = cli[1].toArray()[1].toArray();
    QCOMPARE(int(rows.size()), shown.rows);
    for (int q = 0; q < shown.rows; ++q)
      for (int k = 0; k < shown.cols; ++k)
        QVERIFY(std::abs(rows[q].toArray()[k].toDouble() - shown.at(q, k)) < 1e-6);

    // The slider follows the same text to the step-4 checkpoint.
    inspected.clear();
    QVERIFY(panel.selectCheckpointStep(4));
    QVERIFY(inspected.wait(30000));
    QCOMPARE(inspected.first().at(0).toLongLong(), 4);
    QCOMPARE(panel.frame()->text, text);

    // Longer than the model takes: cut, and the tab says so.
    QString longText;
    for (int i = 0; i < 40; ++i) longText += QStringLiteral("the cat sat . ");
    inspected.clear();
    panel.inspect(longText);
    QVERIFY(inspected.wait(30000));
    QVERIFY(panel.frame()->truncated);
    QVERIFY(
        panel.findChild<QLabel*>("inspectStatus")->text().contains("cut to the model's maximum"));
  }

  void probeSentenceAndFileLineAsTheCliDoes() {
    app::RunSession run(m_run, Qt::red);
    addCheckpoints(run, m_run);
    app::InspectorPanel panel;
    panel.resize(1100, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRuns({&run});

    // The third probe sentence, chosen with the keyboard.
    const QStringList probe = panel.sourceBar()->probeSentences();
    QCOMPARE(int(probe.size()), app::InspectorSourceBar::kProbeSentences);
    auto* probeCombo = panel.findChild<QComboBox*>("inspectProbeSentence");
    pressDown(probeCombo, 3);
    QTRY_VERIFY_WITH_TIMEOUT(panel.frame() && panel.frame()->text == probe[2], 30000);
    QCOMPARE(panel.findChild<QLineEdit*>("inspectText")->text(), probe[2]);
    // A reflexive sentence: "Det N Aux VT Refl" or "Det N Rel Aux VI Aux VT Refl".
    QVERIFY2(probe[2].endsWith("herself") || probe[2].endsWith("himself"), qPrintable(probe[2]));
    panel.selectHead(0, 1);
    const QString probeOut = m_dir.filePath("inspect-probe.h5");
    QVERIFY(tests::cliInspect(tests::checkpointFile(m_run, 8), probe[2], probeOut));
    QVERIFY(tests::sameCells(probabilitiesOf(probeOut)[0].toArray()[1].toArray(),
                             panel.heatmap()->matrix()));

    // A text file with blank lines: the picker holds its two non-empty lines.
    const QString file = m_dir.filePath("lines.txt");
    QVERIFY(tests::writeBytes(file, "\nthe dog sat on the mat .\n\n  a cat ran up the tree .  \n"));
    QVERIFY(panel.sourceBar()->openTextFile(file));
    QCOMPARE(panel.sourceBar()->fileLines(),
             QStringList({"the dog sat on the mat .", "a cat ran up the tree ."}));
    QCOMPARE(panel.sourceBar()->fileLineNumbers(), QList<int>({2, 4}));
    auto* lineCombo = panel.findChild<QComboBox*>("inspectFileLine");
    QVERIFY(lineCombo->isEnabled());
    QVERIFY(lineCombo->itemText(1).startsWith("line 4: a cat"));
    pressDown(lineCombo, 1);  // line 4
    const QString line = QStringLiteral("a cat ran up the tree .");
    QTRY_VERIFY_WITH_TIMEOUT(panel.frame() && panel.frame()->text == line, 30000);
    panel.selectHead(1, 0);
    const QString lineOut = m_dir.filePath("inspect-line.h5");
    QVERIFY(tests::cliInspect(tests::checkpointFile(m_run, 8), line, lineOut));
    QVERIFY(tests::sameCells(probabilitiesOf(lineOut)[1].toArray()[0].toArray(),
                             panel.heatmap()->matrix()));
  }

  void anUnreadableTextFileIsNamed() {
    app::InspectorPanel panel;
    panel.show();
    QSignalSpy failed(&panel, &app::InspectorPanel::inspectionFailed);
    const QString missing = m_dir.filePath("no-such-dir/texts.txt");
    QVERIFY(!panel.sourceBar()->openTextFile(missing));
    QCOMPARE(failed.size(), 1);
    const QString status = panel.findChild<QLabel*>("inspectStatus")->text();
    QVERIFY2(status.startsWith("Cannot read the text file") && status.contains(missing),
             qPrintable(status));
    // A file with no text is refused by name as well; the picker stays as it was.
    const QString blank = m_dir.filePath("blank.txt");
    QVERIFY(tests::writeBytes(blank, "\n  \n"));
    QVERIFY(!panel.sourceBar()->openTextFile(blank));
    QVERIFY(panel.findChild<QLabel*>("inspectStatus")->text().contains(blank));
    QVERIFY(!panel.findChild<QComboBox*>("inspectFileLine")->isEnabled());
  }

  void guidanceOverlayMarksThePatternCells() {
    app::RunSession run(m_run, Qt::red);
    addCheckpoints(run, m_run);
    app::InspectorPanel panel;
    panel.resize(1100, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRuns({&run});
    const QString text = QStringLiteral("the cat sat . the dog ran .");
    panel.inspect(text);
    QTRY_VERIFY_WITH_TIMEOUT(panel.frame() && panel.frame()->text == text, 30000);
    const QStringList pieces = panel.frame()->pieces;
    const int T = int(pieces.size());
    QVERIFY(panel.heatmap()->guidance().values.empty());  // none by default

    // The ASA toggle: off for a run without ASA, and the tooltip says why.
    auto* asa = panel.findChild<QCheckBox*>("inspectAsaMask");
    QVERIFY(!asa->isEnabled());
    QVERIFY(asa->toolTip().contains("does not use ASA"));

    // "period" is the last entry: End chooses it.
    auto* combo = panel.findChild<QComboBox*>("inspectGuidance");
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_End);
    QCOMPARE(combo->currentText(), QStringLiteral("period"));
    std::vector<int> periods;
    for (int j = 0; j < T; ++j)
      if (pieces[j] == "." || pieces[j] == QStringLiteral("\u2581.")) periods.push_back(j);
    QCOMPARE(int(periods.size()), 2);  // the sentence's two periods
    const widgets::Matrix& g = panel.heatmap()->guidance();
    QCOMPARE(g.rows, T);
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) {
        const bool period = std::find(periods.begin(), periods.end(), j) != periods.end();
        QCOMPARE(g.at(i, j), period ? 0.5f : 0.0f);
      }
    QVERIFY(panel.heatmap()->guidanceVisible());
    tests::saveShot(&panel, QStringLiteral("inspect-guidance-period"));

    // "next" (Home, then one down): the cell right of the diagonal, none in the last row.
    QTest::keyClick(combo, Qt::Key_Home);
    QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(combo->currentText(), QStringLiteral("next"));
    const widgets::Matrix& next = panel.heatmap()->guidance();
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) QCOMPARE(next.at(i, j), j == i + 1 ? 1.0f : 0.0f);
    // "none" (Home) takes the overlay away.
    QTest::keyClick(combo, Qt::Key_Home);
    QVERIFY(panel.heatmap()->guidance().values.empty());
  }

  // The text under the slider's neighbouring checkpoint is made while the thread is idle, so
  // moving the slider there repaints from memory; what is shown from memory still equals
  // attnlab-cli inspect under that checkpoint.
  void sliderRepaintsFromMemory() {
    app::RunSession run(m_run, Qt::red);
    addCheckpoints(run, m_run);
    app::InspectorPanel panel;
    panel.resize(1100, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRuns({&run});
    const QString text = QStringLiteral("a dog chased the small cat .");
    panel.inspect(text);
    QTRY_VERIFY_WITH_TIMEOUT(panel.frame() && panel.frame()->text == text, 30000);
    QCOMPARE(panel.frame()->step, 8);
    QVERIFY(!panel.frame()->cached);
    const QString step4 = tests::checkpointFile(m_run, 4);
    QTRY_VERIFY_WITH_TIMEOUT(panel.controller().isCached(step4, text), 30000);

    QSignalSpy inspected(&panel, &app::InspectorPanel::inspected);
    QVERIFY(panel.selectCheckpointStep(4));
    QVERIFY(inspected.wait(5000));
    QCOMPARE(inspected.first().at(0).toLongLong(), 4);
    QVERIFY(panel.frame()->cached);
    QVERIFY(panel.findChild<QLabel*>("inspectStatus")->text().contains("kept in memory"));
    panel.selectHead(1, 0);
    const QString out = m_dir.filePath("inspect-4-memory.h5");
    QVERIFY(tests::cliInspect(step4, text, out));
    QVERIFY(tests::sameCells(probabilitiesOf(out)[1].toArray()[0].toArray(),
                             panel.heatmap()->matrix()));

    // Back to step 8: the frame the first request made.
    inspected.clear();
    QVERIFY(panel.selectCheckpointStep(8));
    QVERIFY(inspected.wait(5000));
    QCOMPARE(panel.frame()->step, 8);
    QVERIFY(panel.frame()->cached);
  }

  void anUnreadableCheckpointGetsAMessage() {
    const QString broken = m_dir.filePath("broken-run");
    QDir().mkpath(broken + "/checkpoints");
    QVERIFY(tests::writeBytes(broken + "/checkpoints/step-0000004.h5", "not hdf5"));
    app::RunSession run(broken, Qt::red);
    app::RunUpdate u;
    u.checkpoints = std::vector<app::CheckpointInfo>{
        {4, broken + "/checkpoints/step-0000004.h5", std::nullopt}};
    run.applyUpdate(std::move(u));
    app::InspectorPanel panel;
    panel.show();
    panel.setRuns({&run});
    QSignalSpy failed(&panel, &app::InspectorPanel::inspectionFailed);
    panel.inspect(QStringLiteral("the cat ."));
    QVERIFY(failed.wait(30000));
    QVERIFY2(failed.first().at(0).toString().contains("step-0000004.h5"),
             qPrintable(failed.first().at(0).toString()));
    QVERIFY(panel.findChild<QLabel*>("inspectStatus")->text().startsWith("Cannot inspect"));
  }
};

QTEST_MAIN(TestInspectorPanel)
#include "test_inspector_panel.moc"
