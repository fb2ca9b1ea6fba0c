// Inspect tab on a real run: a tiny run trained by attnlab-cli (checkpoints at steps 4 and
// 8); a text typed into the tab and Enter give the layer x head grid and the enlarged head,
// whose cells equal `attnlab-cli inspect` on the same text and checkpoint (read back with
// h5py, independently of the app); moving the checkpoint slider follows the text to the
// other checkpoint; a text longer than the model takes is cut and the tab says so; a
// checkpoint that cannot be read gets a message naming it.
#include "app/gui/panels/inspector_panel.h"
#include "core/config/config_loader.h"
#include "tests/support/cli_process.h"
#include "tests/support/tiny_run_setup.h"
#include "widgets/plots/attention_heatmap.h"
#include "widgets/plots/head_grid.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace attnlab;

namespace {

/// Probabilities [L][H][T][T] of an inspection file, read by h5py.
QJsonArray probabilitiesOf(const QString& h5) {
  const auto r =
      tests::runProcess(tests::kPython, {"-c",
                                         "import h5py, json, sys\n"
                                         "f = h5py.File(sys.argv[1], 'r')\n"
                                         "print(json.dumps(f['probabilities'][()].tolist()))",
                                         h5});
  return QJsonDocument::fromJson(r.out.toUtf8()).array();
}

/// A run whose log the watcher would read: here the session only needs the checkpoints.
void addCheckpoints(app::RunSession& run, const QString& dir) {
  app::RunUpdate u;
  std::vector<app::CheckpointInfo> list;
  for (int step : {4, 8})
    list.push_back(
        {step,
         QStringLiteral("%1/checkpoints/step-%2.h5").arg(dir).arg(step, 7, 10, QLatin1Char('0')),
         std::nullopt});
  u.checkpoints = list;
  run.applyUpdate(std::move(u));
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
