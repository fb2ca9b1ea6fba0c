// The Probe tab's options and drill-down on a real run (a tiny run trained by attnlab-cli):
// Run probe with synthetic size, seed and distractor typed into the tab writes the report
// attnlab-cli probe coref writes with the same options (coref_examples.json byte for byte);
// clicking a head in the accuracy matrix lists the kept examples it gets right and wrong,
// checked against coref_examples.json parsed here by Qt's own JSON reader with an argmax of
// our own over the stored rows (and their count against coref.json's per-head correct
// counts); selecting an example draws that head's row. A Lin file with a bad line shows the
// skipped count and file:line; a missing file is named.
// LibTorch (through tiny_run_setup.h) before Qt: Qt's `slots` macro breaks its headers.
#include "tests/support/tiny_run_setup.h"

#include "analysis/coref/probe_examples.h"
#include "analysis/runs/coref_probe_report.h"
#include "app/gui/analysis_controller.h"
#include "app/gui/panels/probe_examples_view.h"
#include "app/gui/panels/probe_panel.h"
#include "core/config/config_loader.h"
#include "tests/support/cli_process.h"
#include "tests/support/json_file.h"
#include "widgets/plots/probe_matrix_plot.h"
#include "widgets/plots/word_attention_bars.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace attnlab;
namespace fs = std::filesystem;

using attnlab::tests::readJson;

namespace {

QByteArray readBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Types `text` into a spin box as a user would: select all, type.
void typeInto(QSpinBox* box, const QString& text) {
  box->setFocus();
  box->selectAll();
  QTest::keyClicks(box, text);
  QTest::keyClick(box, Qt::Key_Tab);
}

/// One item of coref_examples.json as the test reads it, with its own argmax.
struct Expected {
  int example = 0;
  int item = 0;
  bool right = false;
  int argmax = -1;
};

}  // namespace

class TestProbePanel : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;

  /// A panel given `controller` as the main window gives it (Run probe starts the job
  /// there), shown, on `run`.
  void wire(app::ProbePanel& panel, app::AnalysisController& controller, app::RunSession& run) {
    panel.setAnalysisController(&controller);
    panel.resize(1400, 1000);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRuns({&run});
  }

  /// A fresh copy of the trained run without reports.
  QString freshCopy(const QString& name) {
    const fs::path copy = fs::path(m_dir.path().toStdString()) / name.toStdString();
    fs::copy(m_run.toStdString(), copy, fs::copy_options::recursive);
    fs::remove_all(copy / "analysis");
    return QString::fromStdString(copy.string());
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    core::RunConfig config = tests::prepareTinyRun(m_dir.path().toStdString());
    // Room for the synthetic sentences with a distractor phrase (up to about 50 pieces with
    // the tiny vocabulary), so the drill-down has many items.
    config.model.maxPositions = 64;
    const QString toml = m_dir.filePath("tiny.toml");
    std::ofstream(toml.toStdString()) << core::toToml(config);
    m_run = m_dir.filePath("run");
    auto r = tests::runCli({"train", "--config", toml, "--run-dir", m_run, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
  }

  // Size, seed and distractor typed into the tab reach the probe: the report is the one
  // attnlab-cli probe coref writes with --size 60 --seed 7 --distractor, and a click on a
  // head lists the right and wrong examples the stored rows give.
  void syntheticOptionsAndTheDrillDown() {
    const QString dir = freshCopy("synthetic");
    app::RunSession run(dir, Qt::red);
    app::AnalysisController controller;
    app::ProbePanel panel;
    wire(panel, controller, run);

    auto* size = panel.findChild<QSpinBox*>("probeSize");
    auto* seed = panel.findChild<QSpinBox*>("probeSeed");
    auto* distractor = panel.findChild<QCheckBox*>("probeDistractor");
    QVERIFY(size && seed && distractor);
    QVERIFY(size->isEnabled());
    typeInto(size, "60");
    typeInto(seed, "7");
    QTest::mouseClick(distractor, Qt::LeftButton);
    QCOMPARE(panel.request().size, 60);
    QCOMPARE(panel.request().seed, std::uint64_t(7));
    QVERIFY(panel.request().distractor);

    QSignalSpy finished(&controller, &app::AnalysisController::finished);
    QSignalSpy examples(&panel, &app::ProbePanel::examplesLoaded);
    QTest::mouseClick(panel.findChild<QPushButton*>("runProbeButton"), Qt::LeftButton);
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    const QString report = dir + "/analysis/coref-step-8/coref.json";
    QCOMPARE(finished.first().at(3).toString(), report);
    QVERIFY(examples.wait(20000));
    QVERIFY2(examples.first().at(0).toBool(), qPrintable(examples.first().at(1).toString()));
    QVERIFY(QString::fromStdString(panel.report()->datasetDescription)
                .contains("seed 7, with a distractor phrase"));

    // The CLI with the same options writes the same per-example file.
    const QString cliOut = m_dir.filePath("cli-synthetic");
    auto r = tests::runCli({"probe", "coref", dir, "--size", "60", "--seed", "7", "--distractor",
                            "--out", cliOut, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QString examplesFile = dir + "/analysis/coref-step-8/coref_examples.json";
    QVERIFY(!readBytes(examplesFile).isEmpty());
    QCOMPARE(readBytes(examplesFile), readBytes(cliOut + "/coref_examples.json"));
    const QJsonObject cliReport = readJson(cliOut + "/coref.json");
    QCOMPARE(readJson(report)["accuracy"], cliReport["accuracy"]);
    QCOMPARE(readJson(report)["dataset"].toObject()["examples"],
             cliReport["dataset"].toObject()["examples"]);

    // Click the best head of the matrix where it is drawn (it has right and wrong items).
    widgets::ProbeMatrixPlot* matrix = panel.matrix();
    matrix->replotNow();
    const QJsonObject best = readJson(report)["best_head"].toObject();
    const int layer = best["layer"].toInt(), head = best["head"].toInt();
    QVERIFY(best["accuracy"].toDouble() > 0.0 && best["accuracy"].toDouble() < 1.0);
    const QPoint at = matrix->cellCentre(layer, head);
    QVERIFY(at.x() >= 0);
    // The drill-down opens on the best head; a click on another head moves it there, and a
    // click on the best head brings it back.
    app::ProbeExamplesView* view = panel.examplesView();
    QCOMPARE(QPoint(view->layer(), view->head()), QPoint(layer, head));
    const QPoint other(layer == 0 && head == 0 ? 1 : 0, 0);
    QTest::mouseClick(matrix->customPlot(), Qt::LeftButton, {},
                      matrix->cellCentre(other.x(), other.y()));
    QCOMPARE(QPoint(view->layer(), view->head()), other);
    QCOMPARE(matrix->selectedHead(), other);
    QTest::mouseClick(matrix->customPlot(), Qt::LeftButton, {}, at);
    QCOMPARE(view->layer(), layer);
    QCOMPARE(view->head(), head);
    QCOMPARE(matrix->selectedHead(), QPoint(layer, head));

    // Independently: Qt's JSON reader and an argmax of our own over every stored row (the
    // report's scope is "all": every word, first on ties).
    const QJsonObject json = readJson(examplesFile);
    QCOMPARE(json["argmax"].toString(), QStringLiteral("all"));
    const int heads = json["heads"].toInt();
    const int h = layer * heads + head;
    QVector<Expected> expected;
    int right = 0;
    const QJsonArray exampleArray = json["examples"].toArray();
    for (int e = 0; e < exampleArray.size(); ++e) {
      const QJsonArray items = exampleArray[e].toObject()["items"].toArray();
      for (int i = 0; i < items.size(); ++i) {
        const QJsonObject item = items[i].toObject();
        const QJsonArray row = item["rows"].toArray()[h].toArray();
        int best = 0;
        for (int w = 1; w < row.size(); ++w)
          if (row[w].toDouble() > row[best].toDouble()) best = w;
        QCOMPARE(item["picked"].toArray()[h].toInt(), best);
        const bool ok = item["correct"].toArray().contains(QJsonValue(best));
        right += ok ? 1 : 0;
        expected.push_back({e, i, ok, best});
      }
    }
    QVERIFY(!expected.isEmpty());
    // Every probed example is kept (60 < 500), so the right ones are coref.json's count.
    QCOMPARE(json["complete"].toBool(), true);
    QCOMPARE(right, readJson(report)["correct"].toArray()[h].toInt());

    const auto& entries = view->entries();
    QCOMPARE(entries.size(), expected.size());
    for (int k = 0; k < expected.size(); ++k) {
      QCOMPARE(entries[k].example, expected[k].example);
      QCOMPARE(entries[k].item, expected[k].item);
      QCOMPARE(entries[k].right, expected[k].right);
    }
    QTableWidget* table = view->table();
    QCOMPARE(table->rowCount(), int(expected.size()));
    QCOMPARE(table->item(0, 0)->text(),
             expected[0].right ? QStringLiteral("right") : QStringLiteral("wrong"));
    const QJsonObject first = exampleArray[expected[0].example].toObject();
    QCOMPARE(table->item(0, 1)->text(), first["words"].toArray()[expected[0].argmax].toString());
    QCOMPARE(table->item(0, 2)->text(), first["source"].toString());

    // Right only and wrong only: the items our argmax gets and misses, in order.
    auto* filter = view->findChild<QComboBox*>("probeExamplesFilter");
    for (const bool wantRight : {true, false}) {
      filter->setCurrentIndex(wantRight ? 1 : 2);
      QVector<Expected> some;
      for (const auto& x : expected)
        if (x.right == wantRight) some.push_back(x);
      QVERIFY(!some.isEmpty());
      QCOMPARE(view->entries().size(), some.size());
      for (int k = 0; k < some.size(); ++k) {
        QCOMPARE(view->entries()[k].example, some[k].example);
        QCOMPARE(view->entries()[k].item, some[k].item);
        QCOMPARE(view->entries()[k].right, wantRight);
      }
    }
    filter->setCurrentIndex(0);

    // Selecting an example draws that head's row over its words, the antecedent words and
    // the picked word marked.
    const int pick = std::min(3, int(expected.size()) - 1);
    const QRect cell = table->visualItemRect(table->item(pick, 2));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    QVERIFY(view->shownEntry() != nullptr);
    QCOMPARE(view->shownEntry()->example, expected[pick].example);
    QCOMPARE(view->shownEntry()->item, expected[pick].item);
    const QJsonObject shown = exampleArray[expected[pick].example]
                                  .toObject()["items"]
                                  .toArray()[expected[pick].item]
                                  .toObject();
    const QJsonArray row = shown["rows"].toArray()[h].toArray();
    const auto& bars = view->bars()->words();
    QCOMPARE(bars.size(), int(row.size()));
    for (int w = 0; w < bars.size(); ++w) {
      QCOMPARE(float(bars[w].value), float(row[w].toDouble()));
      QCOMPARE(bars[w].picked, w == expected[pick].argmax);
      QCOMPARE(bars[w].correct, shown["correct"].toArray().contains(QJsonValue(w)));
      QCOMPARE(bars[w].query, w == shown["query"].toInt());
      QCOMPARE(bars[w].word,
               exampleArray[expected[pick].example].toObject()["words"].toArray()[w].toString());
    }

    // For looking at: the tab with the drill-down open, when asked for.
    const QString shots = qEnvironmentVariable("ATTNLAB_PROBE_SCREENSHOT");
    if (!shots.isEmpty()) {
      QCoreApplication::processEvents();
      matrix->replotNow();
      view->bars()->replotNow();
      panel.grab().save(shots);
    }
  }

  // A Lin file with a bad line: the tab shows the skipped count and the first messages with
  // file:line; the options that only shape synthetic data are off. A missing file is named.
  void linFileWithABadLineAndAMissingFile() {
    const QString dir = freshCopy("lin");
    const QString copy = m_dir.filePath("lin_copy.tsv");
    QByteArray text = "the king would hurt himself\t9\t0 1\t\n";  // index 9: no such word
    text += readBytes(ATTNLAB_SOURCE_DIR "/tests/fixtures/coref/lin_reflexives.tsv");
    QVERIFY(tests::writeBytes(copy, text));

    app::RunSession run(dir, Qt::red);
    app::AnalysisController controller;
    app::ProbePanel panel;
    wire(panel, controller, run);
    auto* dataset = panel.findChild<QLineEdit*>("probeDataset");
    dataset->selectAll();
    QTest::keyClicks(dataset, "lin:" + copy);
    QVERIFY(!panel.findChild<QSpinBox*>("probeSize")->isEnabled());
    QVERIFY(!panel.findChild<QCheckBox*>("probeDistractor")->isEnabled());

    QSignalSpy finished(&controller, &app::AnalysisController::finished);
    QSignalSpy loaded(&panel, &app::ProbePanel::reportLoaded);
    QTest::mouseClick(panel.findChild<QPushButton*>("runProbeButton"), Qt::LeftButton);
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    QVERIFY(loaded.wait(10000));
    const QJsonObject data =
        readJson(dir + "/analysis/coref-step-8/coref.json")["dataset"].toObject();
    const int skipped = data["skipped_count"].toInt();
    QVERIFY(skipped >= 1);
    auto* label = panel.findChild<QLabel*>("probeSkipped");
    QVERIFY(label->isVisible());
    const QString shown = label->text();
    QVERIFY2(shown.startsWith(QString::number(skipped) + " skipped"), qPrintable(shown));
    const QString first = data["skipped"].toArray()[0].toObject()["where"].toString();
    QCOMPARE(first, copy + ":1");
    QVERIFY2(shown.contains(copy + ":1: "), qPrintable(shown));
    QVERIFY2(shown.contains("out of range"), qPrintable(shown));

    // A file that is not there: the probe fails naming it, the tab stays usable.
    const QString missing = m_dir.filePath("no-such-refl.tsv");
    dataset->selectAll();
    QTest::keyClicks(dataset, "lin:" + missing);
    finished.clear();
    QTest::mouseClick(panel.findChild<QPushButton*>("runProbeButton"), Qt::LeftButton);
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().at(0).toBool(), false);
    const QString summary = panel.findChild<QLabel*>("probeSummary")->text();
    QVERIFY2(summary.contains(missing), qPrintable(summary));
    QVERIFY(panel.findChild<QPushButton*>("runProbeButton")->isEnabled());
  }

  // A report without coref_examples.json (written before the probe kept examples) says so
  // and where it looked; the matrix still shows.
  void aReportWithoutExamplesSaysSo() {
    const QString dir = freshCopy("old");
    auto r = tests::runCli({"probe", "coref", dir, "--size", "20", "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QString examplesFile = dir + "/analysis/coref-step-8/coref_examples.json";
    QVERIFY(QFile::remove(examplesFile));
    app::RunSession run(dir, Qt::red);
    app::ProbePanel panel;
    panel.show();
    QSignalSpy examples(&panel, &app::ProbePanel::examplesLoaded);
    panel.setRuns({&run});
    QVERIFY(examples.wait(10000));
    QCOMPARE(examples.first().at(0).toBool(), false);
    const QString header = panel.examplesView()->findChild<QLabel*>("probeExamplesHeader")->text();
    QVERIFY2(header.contains(examplesFile), qPrintable(header));
    QVERIFY(panel.matrix()->bestHead().x() >= 0);
  }
};

QTEST_MAIN(TestProbePanel)
#include "test_probe_panel.moc"
