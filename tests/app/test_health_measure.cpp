// The Health tab's Measure health in the real main window: a read-only copy of the ModernBERT
// fixture (a pretrained folder) and a run trained with log.health = false are measured by a
// click on the bar's button; the tab then shows the report as one step, and its heatmap's
// cells are the values `attnlab-cli health` writes for the same checkpoint and text (that
// report is checked against numpy in app_test_cli_health). A text file that is not there is
// refused by name and leaves the tab as it was.
#include "app/gui/jobs/job_bar.h"
#include "app/gui/jobs/job_runner.h"
#include "app/gui/main_window.h"
#include "app/gui/panels/health/health_data.h"
#include "app/gui/panels/health/health_measurement.h"
#include "app/gui/panels/health/health_panel.h"
#include "app/gui/view_tabs.h"
#include "tests/support/cli_process.h"
#include "tests/support/json_file.h"
#include "tests/support/model_folder_runs.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"
#include "tests/support/window_tabs.h"
#include "widgets/plots/head_value_map.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTabBar>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace attnlab;

using attnlab::tests::readJson;

class TestHealthMeasure : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  QString path(const QString& name) const { return m_dir.filePath(name); }

  static app::HealthPanel* panelOf(app::MainWindow& window) {
    return window.parts().views->healthPanel();
  }

  /// Clicks Measure health and waits for the tab to show the measurement.
  static void measure(app::HealthPanel* panel) {
    QPushButton* run = panel->measureBar()->jobBar()->runButton();
    QTRY_VERIFY(run->isVisible() && run->isEnabled());
    QTest::mouseClick(run, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!panel->measureBar()->runner()->isRunning(), 240000);
    QTRY_VERIFY2(panel->showsMeasurement() && panel->showsContent(),
                 qPrintable(panel->measureBar()->jobBar()->statusText()));
  }

  static bool near(double got, double want) {
    return std::abs(got - want) <= 1e-5 * std::max(1.0, std::abs(want));
  }

  /// The heatmap's cells of `quantity` against `report`'s `key` [L][H] (or, with `sinkClass`,
  /// class_mass [L][H][C] at that class), head by head.
  static void compareHeatmap(app::HealthPanel* panel, const QJsonObject& report,
                             app::HealthQuantity quantity, const QString& key, int sinkClass = -1) {
    panel->setQuantity(quantity, sinkClass);
    // "a.b": member b of member a (spectral_norm_rotary.norm).
    const QStringList path = key.split('.');
    const QJsonArray layers =
        path.size() == 2 ? report[path[0]].toObject()[path[1]].toArray() : report[key].toArray();
    QVERIFY2(!layers.isEmpty(), qPrintable(key));
    QTRY_COMPARE(panel->heatmap()->values().rows, layers.size());
    const widgets::Matrix m = panel->heatmap()->values();
    for (int l = 0; l < m.rows; ++l)
      for (int h = 0; h < m.cols; ++h) {
        const QJsonValue cell = layers[l].toArray()[h];
        const double want =
            sinkClass >= 0 ? cell.toArray()[sinkClass].toDouble(std::nan("")) : cell.toDouble();
        const double got = m.values[static_cast<size_t>(l * m.cols + h)];
        QVERIFY2(
            near(got, want) || (std::isnan(got) && std::isnan(want)),
            qPrintable(QString("%1 L%2H%3: %4 vs %5").arg(key).arg(l).arg(h).arg(got).arg(want)));
      }
  }

  /// The heatmaps of three quantities and the per-layer massive ratio against `report`.
  static void compareWithReport(app::HealthPanel* panel, const QJsonObject& report) {
    compareHeatmap(panel, report, app::HealthQuantity::EntropyMin, "entropy_min");
    compareHeatmap(panel, report, app::HealthQuantity::LogitMax, "logit_max");
    compareHeatmap(panel, report, app::HealthQuantity::SinkMass, "class_mass", 1);  // cls
    const QJsonArray ratio = report["massive_ratio"].toArray();
    const auto& shown = panel->history().massiveRatio.at(0);
    QCOMPARE(static_cast<int>(shown.size()), ratio.size());
    for (int l = 0; l < ratio.size(); ++l)
      QVERIFY2(near(shown[static_cast<size_t>(l)], ratio[l].toDouble()),
               qPrintable(QString::number(l)));
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, path("settings"));
    QStandardPaths::setTestModeEnabled(true);
    qputenv("XDG_DATA_HOME", path("data-home").toUtf8());
  }

  void modelFolderIsMeasuredOnTheProbeSentences() {
    const QString model = tests::readOnlyCopy(
        QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/fixtures/hf-modernbert"), path("modernbert"));
    QVERIFY(!model.isEmpty());
    app::MainWindow window;
    tests::openOnTab(window, model, "Health");
    app::HealthPanel* panel = panelOf(window);
    QTRY_VERIFY(panel->placeholderText().contains("pretrained model folder"));
    QVERIFY(panel->placeholderText().contains("Measure health"));
    QVERIFY(panel->measureBar()->isVisible());
    QVERIFY(panel->measureBar()->sourceBox()->currentText().startsWith("probe sentences"));
    measure(panel);
    QCOMPARE(panel->history().steps, std::vector<std::int64_t>{0});
    QCOMPARE(panel->shownStep(), qint64(0));
    // The same report by the command line on the sentences the tab wrote.
    const QString text = panel->measureBar()->probeTextPath();
    QVERIFY(QFileInfo::exists(text));
    const auto cli = tests::runCli({"health", model, "--text", text, "--out", path("mb-cli")});
    QVERIFY2(cli.exitCode == 0, qPrintable(cli.out + cli.err));
    const QJsonObject report = readJson(path("mb-cli/health.json"));
    QCOMPARE(report["layers"].toInt(), 4);
    compareWithReport(panel, report);
    // The fixture has rotary positions: its largest spectral norm over the offsets is offered.
    compareHeatmap(panel, report, app::HealthQuantity::RotarySpectralNorm,
                   "spectral_norm_rotary.norm");
    // The tab's own report was written where the command line writes it by default.
    const QString written = QFileInfo(text).path() + "/health-step-0/health.json";
    QCOMPARE(readJson(written)["entropy_min"], report["entropy_min"]);
    const QLabel* note = panel->measureBar()->findChild<QLabel*>("healthMeasureNote");
    QVERIFY2(note->text().contains("20 sequences") && note->text().contains("health-step-0"),
             qPrintable(note->text()));
    QVERIFY(note->toolTip().contains(QFileInfo(written).path()));
    QVERIFY(!QFileInfo::exists(model + "/analysis"));  // the folder itself is read-only
  }

  // For the docs: ATTNLAB_HEALTH_SHOT_MODEL=<model folder> ATTNLAB_HEALTH_SHOT_DIR=<dir> saves
  // the window after that folder was measured on the probe sentences (minimum entropy, or with
  // ATTNLAB_HEALTH_SHOT_QUANTITY=rotary the rotary spectral norm).
  void screenshotOfAMeasuredModel() {
    const QString model = qEnvironmentVariable("ATTNLAB_HEALTH_SHOT_MODEL");
    const QString dir = qEnvironmentVariable("ATTNLAB_HEALTH_SHOT_DIR");
    if (model.isEmpty() || dir.isEmpty()) QSKIP("no ATTNLAB_HEALTH_SHOT_MODEL / _DIR");
    app::MainWindow window;
    window.resize(1400, 900);
    tests::openOnTab(window, model, "Health");
    app::HealthPanel* panel = panelOf(window);
    measure(panel);
    const QString quantity = qEnvironmentVariable("ATTNLAB_HEALTH_SHOT_QUANTITY");
    panel->setQuantity(quantity == "rotary" ? app::HealthQuantity::RotarySpectralNorm
                                            : app::HealthQuantity::EntropyMin);
    QTRY_VERIFY(panel->heatmap()->values().isValid());
    for (auto* plot : window.findChildren<QCustomPlot*>()) plot->replot();
    QVERIFY(window.grab().save(dir + "/health-measured" +
                               (quantity.isEmpty() ? QString() : "-" + quantity) + ".png"));
  }

  void aRunWithoutSeriesIsMeasuredOnItsValidationSplit() {
    QVERIFY(tests::writeBytes(path("corpus.txt"),
                              QByteArray::fromStdString(tests::regularCorpusText(300))));
    QVERIFY(tests::writeBytes(path("small.toml"),
                              tests::smallRunToml("no-health", path("corpus.txt"), 6, 3)));
    const QString run = path("no-health");
    const auto trained = tests::runCli({"train", "--config", path("small.toml"), "--run-dir", run,
                                        "--plain", "--set", "log.health=false"});
    QVERIFY2(trained.exitCode == 0, qPrintable(trained.out + trained.err));
    app::MainWindow window;
    tests::openOnTab(window, run, "Health");
    app::HealthPanel* panel = panelOf(window);
    QTRY_VERIFY(panel->placeholderText().contains("log.health = false"));
    QVERIFY(panel->measureBar()->sourceBox()->currentText().contains("validation split"));

    // A text file that is not there: refused by name, the tab as it was.
    const QString missing = path("no-such-lines.txt");
    panel->measureBar()->setTextFile(missing);
    QTest::mouseClick(panel->measureBar()->jobBar()->runButton(), Qt::LeftButton);
    QTRY_VERIFY(panel->measureBar()->jobBar()->statusText().contains(missing));
    QVERIFY(panel->measureBar()->jobBar()->statusText().contains("no such text file"));
    QVERIFY(!panel->showsContent());

    auto* box = panel->measureBar()->sourceBox();
    box->setCurrentIndex(box->findText("the run's validation split"));
    measure(panel);
    QCOMPARE(panel->history().steps, std::vector<std::int64_t>{6});
    // Learned positions: no rotary norm to offer.
    QComboBox* quantities = panel->quantityBox();
    const int rotary =
        quantities->findData(static_cast<int>(app::HealthQuantity::RotarySpectralNorm));
    QVERIFY(rotary >= 0);
    QVERIFY(
        !(quantities->model()->flags(quantities->model()->index(rotary, 0)) & Qt::ItemIsEnabled));
    const auto cli = tests::runCli({"health", run, "--out", path("run-cli")});
    QVERIFY2(cli.exitCode == 0, qPrintable(cli.out + cli.err));
    compareWithReport(panel, readJson(path("run-cli/health.json")));
  }
};

QTEST_MAIN(TestHealthMeasure)
#include "test_health_measure.moc"
