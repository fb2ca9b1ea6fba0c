// Analysis panel on a real report: a tiny run trained and analysed by attnlab-cli; the panel
// finds <run>/analysis/step-S/analysis.json, reads it off the GUI thread and draws the
// entropy and JSD violins and the head table. What it shows is compared with the JSON file
// parsed here by Qt's own JSON reader (independently of the project's reader). A file that
// is not a report gets a message naming it, and the panel keeps working.
// LibTorch (engine_random.h) before Qt: Qt's `slots` macro breaks its headers.
#include "core/runtime/engine_random.h"

#include "analysis/runs/coref_probe_report.h"
#include "app/gui/analysis_controller.h"
#include "app/gui/panels/analysis_panel.h"
#include "app/gui/panels/probe_panel.h"
#include "core/config/config_loader.h"
#include "tests/support/cli_process.h"
#include "tests/support/tiny_run_setup.h"
#include "widgets/plots/probe_matrix_plot.h"
#include "widgets/plots/violin_grid.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <mutex>

using namespace attnlab;
namespace fs = std::filesystem;

namespace {
/// The text of an SVG file (title, axis labels, legend), in document order.
QStringList svgTexts(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QStringList texts;
  QXmlStreamReader xml(&f);
  while (!xml.atEnd())
    if (xml.readNext() == QXmlStreamReader::Characters && !xml.isWhitespace())
      texts << xml.text().toString();
  return texts;
}
}  // namespace

class TestAnalysisPanel : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;
  QJsonObject m_json;

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const core::RunConfig config = tests::prepareTinyRun(m_dir.path().toStdString());
    const QString toml = m_dir.filePath("tiny.toml");
    std::ofstream(toml.toStdString()) << core::toToml(config);
    m_run = m_dir.filePath("run");
    auto r = tests::runCli({"train", "--config", toml, "--run-dir", m_run, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    r = tests::runCli({"analyze", m_run});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QFile f(m_run + "/analysis/step-8/analysis.json");
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
    m_json = QJsonDocument::fromJson(f.readAll()).object();
    QVERIFY(m_json.contains("per_head"));
  }

  void showsTheRunsReport() {
    app::RunSession run(m_run, Qt::red);
    app::AnalysisPanel panel;
    panel.resize(1000, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy loaded(&panel, &app::AnalysisPanel::reportLoaded);
    panel.setRuns({&run});
    QCOMPARE(panel.reportFiles().size(), 1);
    QVERIFY(loaded.wait(10000));
    QVERIFY(panel.report() != nullptr);

    // The violins are the report's: one per (layer, head), medians as in the file.
    const QJsonArray heads = m_json["per_head"].toArray();
    widgets::ViolinGrid* violins = panel.violins();
    QCOMPARE(violins->rows() * violins->heads(), int(heads.size()));
    for (const auto& h : heads) {
      const QJsonObject head = h.toObject();
      const int layer = head["layer"].toInt(), index = head["head"].toInt();
      QCOMPARE(violins->summary(layer, index).median,
               head["entropy"].toObject()["median"].toDouble());
    }
    // The JSD violins: layers 1.. against the layer below.
    auto* statistic = panel.findChild<QComboBox*>("analysisStatisticBox");
    statistic->setCurrentIndex(1);
    QCOMPARE(panel.statistic(), app::AnalysisPanel::Statistic::AdjacentJsd);
    QCOMPARE(violins->rows(), m_json["per_head"].toArray().last().toObject()["layer"].toInt());
    for (const auto& h : heads) {
      const QJsonObject head = h.toObject();
      if (head["layer"].toInt() == 0) continue;
      QCOMPARE(violins->summary(head["layer"].toInt() - 1, head["head"].toInt()).median,
               head["jsd_to_layer_below"].toObject()["median"].toDouble());
    }

    // The head table: one row per head, Clark et al.'s six columns as in the file; sorting
    // by a column orders by its number.
    QTableWidget* table = panel.headTable();
    QCOMPARE(table->rowCount(), int(heads.size()));
    table->sortItems(2, Qt::DescendingOrder);  // attention to the first token
    double previous = 1e9;
    for (int row = 0; row < table->rowCount(); ++row) {
      const int layer = table->item(row, 0)->data(Qt::UserRole).toInt();
      const int head = table->item(row, 1)->data(Qt::UserRole).toInt();
      const double first = table->item(row, 2)->data(Qt::UserRole).toDouble();
      QVERIFY(first <= previous);
      previous = first;
      for (const auto& h : heads) {
        const QJsonObject o = h.toObject();
        if (o["layer"].toInt() == layer && o["head"].toInt() == head)
          QCOMPARE(first, o["attention_to"].toObject()["first"].toDouble());
      }
    }
    QVERIFY(panel.findChild<QLabel*>("analysisSummary")->text().contains("step 8"));

    // Export: the figures library draws what attnlab-cli export draws. The SVG of the tab's
    // export and the CLI's carry the same text (title, axes, legend).
    statistic->setCurrentIndex(0);
    QVERIFY(violins->title().contains("step 8"));
    const QString fromTab = m_dir.filePath("tab.svg");
    QCOMPARE(panel.exportFigure(fromTab), QString());
    QVERIFY(svgTexts(fromTab).contains(violins->title()));
    const QString fromCli = m_dir.filePath("cli.svg");
    const auto r = tests::runCli({"export", m_run, "--figure", "entropy-violins", "--format", "svg",
                                  "--out", fromCli, "--step", "8"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QCOMPARE(svgTexts(fromTab), svgTexts(fromCli));
    for (const char* ext : {"png", "pdf"})
      QCOMPARE(panel.exportFigure(m_dir.filePath(QStringLiteral("tab.") + ext)), QString());
    QVERIFY(!QImage(m_dir.filePath("tab.png")).isNull());
    QVERIFY(panel.exportFigure(m_dir.filePath("tab.bmp")).contains("choose a .png, .svg or .pdf"));
  }

  // Run analysis from the tab: Cancel stops it and nothing is written; run again, it writes
  // the report where attnlab-cli analyze would and the tab shows it.
  void runsAnAnalysisWithProgressAndCancel() {
    const fs::path copy = fs::path(m_dir.path().toStdString()) / "fresh";
    fs::copy(m_run.toStdString(), copy, fs::copy_options::recursive);
    fs::remove_all(copy / "analysis");
    const QString dir = QString::fromStdString(copy.string());
    app::RunSession run(dir, Qt::blue);
    app::AnalysisController controller;
    app::AnalysisPanel panel;
    panel.setAnalysisController(&controller);
    connect(&panel, &app::AnalysisPanel::analysisRequested, &controller,
            [&controller](app::RunSession* r) { controller.start(r->directory()); });
    panel.resize(1000, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRuns({&run});
    QVERIFY(panel.reportFiles().isEmpty());
    QVERIFY(panel.findChild<QLabel*>("analysisPlaceholder")->text().contains("no analysis yet"));
    auto* runButton = panel.findChild<QPushButton*>("runAnalysisButton");
    auto* cancelButton = panel.findChild<QPushButton*>("cancelAnalysisButton");
    QVERIFY(runButton->isEnabled());

    QSignalSpy finished(&controller, &app::AnalysisController::finished);
    {
      // The analysis builds its model under the global-generator lock: holding it keeps the
      // analysis at its first step until Cancel has been clicked, whatever the machine's
      // speed.
      std::lock_guard<std::mutex> hold(core::globalGeneratorMutex());
      QTest::mouseClick(runButton, Qt::LeftButton);
      QVERIFY(controller.isRunning());
      QVERIFY(!runButton->isEnabled());
      QTRY_VERIFY(cancelButton->isVisible());
      QTest::mouseClick(cancelButton, Qt::LeftButton);
    }
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.first().at(0).toBool(), false);
    QCOMPARE(finished.first().at(1).toBool(), true);  // cancelled, not failed
    QVERIFY(panel.findChild<QLabel*>("analysisSummary")->text().contains("cancelled"));
    QVERIFY(!fs::exists(copy / "analysis" / "step-8"));
    QVERIFY(runButton->isEnabled());
    QVERIFY(!cancelButton->isVisible());

    // Again, to the end.
    finished.clear();
    QSignalSpy loaded(&panel, &app::AnalysisPanel::reportLoaded);
    QSignalSpy progress(&controller, &app::AnalysisController::progress);
    QTest::mouseClick(runButton, Qt::LeftButton);
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    QVERIFY(!progress.isEmpty());
    const QString written = finished.first().at(3).toString();
    QCOMPARE(written, dir + "/analysis/step-8/analysis.json");
    QVERIFY(loaded.wait(10000));
    QCOMPARE(panel.reportFiles(), QStringList{written});
    QCOMPARE(panel.reportPath(), written);
    QVERIFY(panel.violins()->violinCount() > 0);
  }

  // The Probe tab: the run's coref.json from attnlab-cli probe coref, its best head and
  // accuracies as in the file (parsed here by Qt), exported as the CLI exports it.
  void probeTabShowsTheCorefReport() {
    auto r = tests::runCli({"probe", "coref", m_run, "--size", "200"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QString file = m_run + "/analysis/coref-step-8/coref.json";
    QFile f(file);
    QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(file));
    const QJsonObject json = QJsonDocument::fromJson(f.readAll()).object();

    app::RunSession run(m_run, Qt::red);
    app::ProbePanel panel;
    panel.resize(1000, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy loaded(&panel, &app::ProbePanel::reportLoaded);
    panel.setRuns({&run});
    QCOMPARE(panel.reportFiles(), QStringList{file});
    QVERIFY(loaded.wait(10000));
    const QJsonObject best = json["best_head"].toObject();
    QCOMPARE(panel.matrix()->bestHead(), QPoint(best["layer"].toInt(), best["head"].toInt()));
    QVERIFY(std::abs(panel.matrix()->bestAccuracy() - best["accuracy"].toDouble()) < 1e-6);
    QTableWidget* table = panel.summaryTable();
    QCOMPARE(table->rowCount(), 2 + int(json["baselines"].toArray().size()));
    QCOMPARE(table->item(1, 1)->text().toDouble(),
             std::round(json["mean_over_heads"].toDouble() * 1000) / 1000);

    const QString fromTab = m_dir.filePath("probe-tab.svg");
    QCOMPARE(panel.exportFigure(fromTab), QString());
    const QString fromCli = m_dir.filePath("probe-cli.svg");
    r = tests::runCli({"export", m_run, "--figure", "coref-heads", "--format", "svg", "--out",
                       fromCli, "--step", "8"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QCOMPARE(svgTexts(fromTab), svgTexts(fromCli));
  }

  // Run probe from the tab, on Lin et al.'s format: Cancel writes nothing; run again, the
  // report is where attnlab-cli probe coref writes it and the tab shows it.
  void runsAProbeWithCancel() {
    const fs::path copy = fs::path(m_dir.path().toStdString()) / "probe-fresh";
    fs::copy(m_run.toStdString(), copy, fs::copy_options::recursive);
    fs::remove_all(copy / "analysis");
    const QString dir = QString::fromStdString(copy.string());
    app::RunSession run(dir, Qt::blue);
    app::AnalysisController controller;
    app::ProbePanel panel;
    panel.setAnalysisController(&controller);
    connect(&panel, &app::ProbePanel::probeRequested, &controller,
            [&controller](app::RunSession* r, const QString& dataset) {
              controller.startProbe(r->directory(), dataset);
            });
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRuns({&run});
    auto* dataset = panel.findChild<QLineEdit*>("probeDataset");
    dataset->selectAll();
    QTest::keyClicks(dataset, "lin:" ATTNLAB_SOURCE_DIR "/tests/fixtures/coref/lin_reflexives.tsv");
    auto* runButton = panel.findChild<QPushButton*>("runProbeButton");
    auto* cancelButton = panel.findChild<QPushButton*>("cancelProbeButton");
    QSignalSpy finished(&controller, &app::AnalysisController::finished);
    {
      std::lock_guard<std::mutex> hold(core::globalGeneratorMutex());  // holds the first step
      QTest::mouseClick(runButton, Qt::LeftButton);
      QVERIFY(controller.isRunning());
      QTRY_VERIFY(cancelButton->isVisible());
      QTest::mouseClick(cancelButton, Qt::LeftButton);
    }
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.first().at(1).toBool(), true);
    QVERIFY(panel.findChild<QLabel*>("probeSummary")->text().contains("cancelled"));
    QVERIFY(!fs::exists(copy / "analysis" / "coref-step-8"));

    finished.clear();
    QSignalSpy loaded(&panel, &app::ProbePanel::reportLoaded);
    QTest::mouseClick(runButton, Qt::LeftButton);
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    QCOMPARE(finished.first().at(3).toString(), dir + "/analysis/coref-step-8/coref.json");
    QVERIFY(loaded.wait(10000));
    QVERIFY(QString::fromStdString(panel.report()->dataset).startsWith("lin:"));
    QVERIFY(panel.report()->result.items > 0);
  }

  void aFileThatIsNotAReportGetsAMessage() {
    const QString bad = m_dir.filePath("not-a-report.json");
    QVERIFY(tests::writeBytes(bad, "{\"format\": \"something-else\"}"));
    app::AnalysisPanel panel;
    panel.show();
    QSignalSpy failed(&panel, &app::AnalysisPanel::loadFailed);
    panel.openReport(bad);
    QVERIFY(failed.wait(10000));
    const QString message = failed.first().at(0).toString();
    QVERIFY2(message.contains(bad), qPrintable(message));
    QVERIFY(panel.findChild<QLabel*>("analysisSummary")->text().contains(bad));
    // Still usable: the real report opens after it.
    QSignalSpy loaded(&panel, &app::AnalysisPanel::reportLoaded);
    panel.openReport(m_run + "/analysis/step-8/analysis.json");
    QVERIFY(loaded.wait(10000));
  }
};

QTEST_MAIN(TestAnalysisPanel)
#include "test_analysis_panel.moc"
