// Analysis panel on a real report: a tiny run trained and analysed by attnlab-cli; the panel
// finds <run>/analysis/step-S/analysis.json, reads it off the GUI thread and draws the
// entropy and JSD violins and the head table. What it shows is compared with the JSON file
// parsed here by Qt's own JSON reader (independently of the project's reader). A file that
// is not a report gets a message naming it, and the panel keeps working.
// LibTorch (engine_random.h) before Qt: Qt's `slots` macro breaks its headers.
#include "core/runtime/engine_random.h"

#include "analysis/runs/coref_probe_report.h"
#include "app/gui/analysis_controller.h"
#include "app/gui/jobs/job_runner.h"
#include "app/gui/panels/analysis_beyond_view.h"
#include "app/gui/panels/analysis_guidance_view.h"
#include "app/gui/panels/analysis_panel.h"
#include "app/gui/panels/analysis_run_options.h"
#include "app/gui/panels/analysis_similarity_view.h"
#include "app/gui/panels/analysis_summary_view.h"
#include "app/gui/panels/analysis_training_view.h"
#include "app/gui/panels/probe_panel.h"
#include "core/config/config_loader.h"
#include "tests/support/cli_process.h"
#include "tests/support/tiny_run_setup.h"
#include "widgets/plots/matrix_heatmap.h"
#include "widgets/plots/plot_widget.h"
#include "widgets/plots/probe_matrix_plot.h"
#include "widgets/plots/scatter_plot.h"
#include "widgets/plots/violin_grid.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QXmlStreamReader>
#include <QtTest>

#include <algorithm>
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

/// The points of a plotted graph, in plotting order.
QVector<QPointF> pointsOf(const QCPGraph* graph) {
  QVector<QPointF> points;
  if (graph == nullptr) return points;
  for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
    points << QPointF(it->key, it->value);
  return points;
}

/// Leaves an image of `widget` (after its queued replots) where a person can look at it.
bool saveShot(QWidget& widget, const QString& name) {
  for (auto* plot : widget.findChildren<widgets::PlotWidget*>())
    if (plot->isVisible()) plot->replotNow();
  const QString dir = QDir::temp().filePath(QStringLiteral("attnlab-analysis-views"));
  QDir().mkpath(dir);
  return widget.grab().save(QDir(dir).filePath(name + QStringLiteral(".png")));
}

/// y = A x for a dense n x n matrix.
std::vector<double> times(const std::vector<double>& a, const std::vector<double>& x) {
  const std::size_t n = x.size();
  std::vector<double> y(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) y[i] += a[i * n + j] * x[j];
  return y;
}

/// The largest eigenvalue of the symmetric `a` by power iteration on a + shift I (shift
/// from Gershgorin, so the largest algebraic one dominates), after deflating `known`
/// eigenpairs: an independent check of the panel's Jacobi solver.
double largestEigenvalue(std::vector<double> a, std::size_t n,
                         const std::vector<std::pair<double, std::vector<double>>>& known) {
  for (const auto& [lambda, v] : known) {
    double norm2 = 0;
    for (double x : v) norm2 += x * x;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) a[i * n + j] -= lambda * v[i] * v[j] / norm2;
  }
  double shift = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double row = 0;
    for (std::size_t j = 0; j < n; ++j) row += std::abs(a[i * n + j]);
    shift = std::max(shift, row);
  }
  for (std::size_t i = 0; i < n; ++i) a[i * n + i] += shift;
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = 1.0 + 0.1 * double(i);
  double lambda = 0;
  for (int it = 0; it < 20000; ++it) {
    std::vector<double> y = times(a, x);
    double norm = 0;
    for (double v : y) norm += v * v;
    norm = std::sqrt(norm);
    if (norm == 0) return -shift;
    for (double& v : y) v /= norm;
    lambda = 0;
    const std::vector<double> ay = times(a, y);
    for (std::size_t i = 0; i < n; ++i) lambda += y[i] * ay[i];
    x = y;
  }
  return lambda - shift;
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
    panel.setAnalysisController(&controller);  // the tab starts its job there itself
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

  // Head summaries: Clark et al.'s Fig. 2 scatter has, per behaviour, one point per head at
  // x = its layer and y = its value in the file; the table sorts numerically when its
  // header is clicked.
  void headSummaryScatterAndSortedTable() {
    app::RunSession run(m_run, Qt::red);
    app::AnalysisPanel panel;
    panel.resize(1400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy loaded(&panel, &app::AnalysisPanel::reportLoaded);
    panel.setRuns({&run});
    QVERIFY(loaded.wait(10000));
    panel.viewTabs()->setCurrentIndex(1);
    QCOMPARE(panel.view(), app::AnalysisPanel::View::HeadSummaries);
    QCOMPARE(panel.currentFigureName(), QString("clark-fig2"));
    QCOMPARE(panel.currentFigureStep(), qint64(8));

    const QJsonArray heads = m_json["per_head"].toArray();
    const int layers = m_json["layers"].toInt(), nHeads = m_json["heads"].toInt();
    const char* keys[] = {"first", "separator", "period", "previous", "next", "self"};
    widgets::ScatterPlot* scatter = panel.summaryView()->scatter();
    QCOMPARE(scatter->panelCount(), 6);
    for (int b = 0; b < 6; ++b) {
      QVERIFY(scatter->panel(b).yLabel.contains("mean attention (fraction)"));
      for (int l = 0; l < layers; ++l) {
        const QVector<QPointF> points = pointsOf(scatter->graph(b, l));
        QCOMPARE(points.size(), nHeads);
        for (int h = 0; h < nHeads; ++h) {
          const QJsonObject head = heads[l * nHeads + h].toObject();
          QCOMPARE(head["layer"].toInt(), l);
          QCOMPARE(points[h].x(), double(l));
          QCOMPARE(points[h].y(), head["attention_to"].toObject()[keys[b]].toDouble());
        }
      }
    }
    QVERIFY(saveShot(panel, "head-summaries"));

    // Clicking the "separator" header sorts ascending by number, again descending.
    QTableWidget* table = panel.headTable();
    QHeaderView* header = table->horizontalHeader();
    const int column = 3;
    QCOMPARE(table->horizontalHeaderItem(column)->text(), QString("separator"));
    std::vector<double> expected;
    for (const auto& h : heads)
      expected.push_back(h.toObject()["attention_to"].toObject()["separator"].toDouble());
    std::sort(expected.begin(), expected.end());
    const auto clickHeader = [&] {
      const QPoint at(header->sectionViewportPosition(column) + header->sectionSize(column) / 2,
                      header->height() / 2);
      QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
    };
    const auto column3 = [&] {
      std::vector<double> values;
      for (int row = 0; row < table->rowCount(); ++row)
        values.push_back(table->item(row, column)->data(Qt::UserRole).toDouble());
      return values;
    };
    clickHeader();
    QTRY_COMPARE(header->sortIndicatorSection(), column);
    if (header->sortIndicatorOrder() == Qt::DescendingOrder) clickHeader();
    QTRY_COMPARE(header->sortIndicatorOrder(), Qt::AscendingOrder);
    QCOMPARE(column3(), expected);
    clickHeader();
    QTRY_COMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
    std::reverse(expected.begin(), expected.end());
    QCOMPARE(column3(), expected);
    // Layer and head columns still name the row's head after sorting.
    for (int row = 0; row < table->rowCount(); ++row) {
      const int l = table->item(row, 0)->data(Qt::UserRole).toInt();
      const int h = table->item(row, 1)->data(Qt::UserRole).toInt();
      QCOMPARE(table->item(row, column)->data(Qt::UserRole).toDouble(),
               heads[l * nHeads + h].toObject()["attention_to"].toObject()["separator"].toDouble());
    }
  }

  // Head similarity: the matrix cells are the file's pairwise JSD; the MDS points are the
  // top two eigenvectors of the double-centred squared JSD computed here, scaled by the
  // square roots of eigenvalues found here by power iteration.
  void headSimilarityMatrixAndMds() {
    app::RunSession run(m_run, Qt::red);
    app::AnalysisPanel panel;
    panel.resize(1400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy loaded(&panel, &app::AnalysisPanel::reportLoaded);
    panel.setRuns({&run});
    QVERIFY(loaded.wait(10000));
    panel.setView(app::AnalysisPanel::View::HeadSimilarity);
    QCOMPARE(panel.currentFigureName(), QString("head-jsd-matrix"));

    const QJsonObject pairs = m_json["pairwise_jsd"].toObject();
    const int n = pairs["size"].toInt();
    const QJsonArray values = pairs["values"].toArray();
    QVERIFY(n > 1);
    QCOMPARE(int(values.size()), n * n);
    widgets::MatrixHeatmap* matrix = panel.similarityView()->matrix();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const double want = values[i * n + j].toDouble();
        QVERIFY(std::abs(matrix->drawnCell(0, i, j) - want) <= 1e-6 * std::max(1.0, want));
      }
    QVERIFY(saveShot(panel, "head-jsd-matrix"));

    auto* display = panel.findChild<QComboBox*>("similarityDisplayBox");
    display->setCurrentIndex(1);
    QCOMPARE(panel.currentFigureName(), QString("head-jsd-mds"));
    const int layers = m_json["layers"].toInt(), nHeads = m_json["heads"].toInt();
    std::vector<double> c1(static_cast<std::size_t>(n)), c2(static_cast<std::size_t>(n));
    widgets::ScatterPlot* mds = panel.similarityView()->embedding();
    for (int l = 0; l < layers; ++l) {
      const QVector<QPointF> points = pointsOf(mds->graph(0, l));
      QCOMPARE(points.size(), nHeads);
      for (int h = 0; h < nHeads; ++h) {
        c1[static_cast<std::size_t>(l * nHeads + h)] = points[h].x();
        c2[static_cast<std::size_t>(l * nHeads + h)] = points[h].y();
      }
    }
    // B = -1/2 J D^2 J from the file's values.
    const auto N = static_cast<std::size_t>(n);
    std::vector<double> b(N * N), row(N, 0.0);
    double all = 0;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        const double d =
            i == j ? 0.0
                   : 0.5 * (values[int(i * N + j)].toDouble() + values[int(j * N + i)].toDouble());
        b[i * N + j] = d * d;
        row[i] += d * d / double(N);
      }
    for (double r : row) all += r / double(N);
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j)
        b[i * N + j] = -0.5 * (b[i * N + j] - row[i] - row[j] + all);
    const double l1 = largestEigenvalue(b, N, {});
    double norm1 = 0, norm2 = 0;
    for (std::size_t i = 0; i < N; ++i) norm1 += c1[i] * c1[i], norm2 += c2[i] * c2[i];
    QVERIFY2(std::abs(norm1 - l1) <= 1e-6 * std::max(1e-12, l1),
             qPrintable(QString("|c1|^2 %1, lambda1 %2").arg(norm1).arg(l1)));
    const double l2 = largestEigenvalue(b, N, {{l1, c1}});
    QVERIFY2(std::abs(norm2 - std::max(0.0, l2)) <= 1e-6 * std::max(1e-9, l1),
             qPrintable(QString("|c2|^2 %1, lambda2 %2").arg(norm2).arg(l2)));
    // Each axis is an eigenvector: B c = lambda c.
    const std::vector<double> bc1 = times(b, c1), bc2 = times(b, c2);
    for (std::size_t i = 0; i < N; ++i) {
      QVERIFY(std::abs(bc1[i] - norm1 * c1[i]) <= 1e-6 * std::max(1e-12, l1));
      QVERIFY(std::abs(bc2[i] - norm2 * c2[i]) <= 1e-6 * std::max(1e-12, l1));
    }
    // The map's distances are the JSD's as far as two axes can hold them: never longer.
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        const double dx = c1[i] - c1[j], dy = c2[i] - c2[j];
        const double d =
            i == j ? 0.0
                   : 0.5 * (values[int(i * N + j)].toDouble() + values[int(j * N + i)].toDouble());
        QVERIFY(std::sqrt(dx * dx + dy * dy) <= d * (1 + 1e-6) + 1e-9 || l2 < 0);
      }
    QVERIFY(saveShot(panel, "head-jsd-mds"));

    // A report without pairwise JSD: the view says why and which option makes it.
    const QString out = m_dir.filePath("no-pairs");
    const auto r =
        tests::runCli({"analyze", m_run, "--pairwise", "0", "--no-snapshots", "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    loaded.clear();
    panel.openReport(out + "/analysis.json");
    QVERIFY(loaded.wait(10000));
    QVERIFY(panel.similarityView()->missingText().contains("--pairwise"));
    QVERIFY(panel.similarityView()->missingText().contains("attnlab-cli analyze --help"));
    QCOMPARE(panel.currentFigureName(), QString());
    QVERIFY(!panel.findChild<QPushButton*>("exportAnalysisFigureButton")->isEnabled());
    QVERIFY(panel.exportFigure(m_dir.filePath("none.png")).contains("nothing to export"));
    // Over training: --no-snapshots left none, and the view says how to get them.
    panel.setView(app::AnalysisPanel::View::OverTraining);
    QVERIFY(panel.findChild<QLabel*>("trainingMissing")->text().contains("--over-checkpoints"));
  }

  // Guidance conformity: every pattern's layer x head cells are the file's total-variation
  // distances; a null (pattern never applied) is drawn "n/a".
  void guidanceConformityCells() {
    // A copy of the report with two values null, as the writer prints NaN.
    QJsonObject json = m_json;
    QJsonArray heads = json["per_head"].toArray();
    const auto nullify = [&](int index, const char* pattern) {
      QJsonObject head = heads[index].toObject();
      QJsonObject conformity = head["guidance_conformity"].toObject();
      QJsonObject p = conformity[pattern].toObject();
      p["total_variation"] = QJsonValue::Null;
      conformity[pattern] = p;
      head["guidance_conformity"] = conformity;
      heads[index] = head;
    };
    nullify(0, "period");
    nullify(1, "period");
    json["per_head"] = heads;
    const QString file = m_dir.filePath("nan-report/analysis.json");
    QDir().mkpath(m_dir.filePath("nan-report"));
    QVERIFY(tests::writeBytes(file, QJsonDocument(json).toJson()));

    app::AnalysisPanel panel;
    panel.resize(1400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy loaded(&panel, &app::AnalysisPanel::reportLoaded);
    panel.openReport(file);
    QVERIFY2(loaded.wait(10000), qPrintable(panel.findChild<QLabel*>("analysisSummary")->text()));
    panel.setView(app::AnalysisPanel::View::Guidance);
    QCOMPARE(panel.currentFigureName(), QString("guidance-conformity"));
    widgets::MatrixHeatmap* heatmap = panel.guidanceView()->heatmap();
    const char* patterns[] = {"next", "prev", "first", "separator", "period"};
    QCOMPARE(heatmap->panelCount(), 5);
    const int layers = json["layers"].toInt(), nHeads = json["heads"].toInt();
    for (int p = 0; p < 5; ++p) {
      int nulls = 0;
      for (int l = 0; l < layers; ++l)
        for (int h = 0; h < nHeads; ++h) {
          const QJsonValue v = heads[l * nHeads + h]
                                   .toObject()["guidance_conformity"]
                                   .toObject()[patterns[p]]
                                   .toObject()["total_variation"];
          const double drawn = heatmap->drawnCell(p, l, h);
          if (v.isNull()) {
            ++nulls;
            QVERIFY(std::isnan(drawn));
          } else {
            QVERIFY(std::abs(drawn - v.toDouble()) < 1e-6);
          }
        }
      QCOMPARE(heatmap->notApplicableCells(p), nulls);
    }
    QVERIFY(heatmap->notApplicableCells(4) >= 2);
    QCOMPARE(heatmap->valueRange(), std::make_pair(0.0, 1.0));
    QVERIFY(saveShot(panel, "guidance-all"));
    // One pattern from the combo: its cells alone.
    panel.findChild<QComboBox*>("guidancePatternBox")->setCurrentIndex(5);  // period
    QCOMPARE(heatmap->panelCount(), 1);
    QCOMPARE(heatmap->notApplicableCells(0), heatmap->panel(0).values.rows > 0 ? 2 : 0);
    QVERIFY(std::isnan(heatmap->drawnCell(0, 0, 0)));
    QVERIFY(saveShot(panel, "guidance-period"));
    const QString svg = m_dir.filePath("guidance-period.svg");
    QCOMPARE(panel.exportFigure(svg), QString());
    QVERIFY(svgTexts(svg).contains("mean total-variation distance (0 = follows the pattern)"));
    QVERIFY(svgTexts(svg).contains("n/a"));
  }

  // Over training: one line per head through the file's medians at each step, and the step
  // slider moves the violins to the medians of the step it is at.
  void overTrainingLinesAndSlider() {
    app::RunSession run(m_run, Qt::red);
    app::AnalysisPanel panel;
    panel.resize(1400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy loaded(&panel, &app::AnalysisPanel::reportLoaded);
    panel.setRuns({&run});
    QVERIFY(loaded.wait(10000));
    panel.setView(app::AnalysisPanel::View::OverTraining);
    QCOMPARE(panel.currentFigureName(), QString("training-statistics"));
    app::AnalysisTrainingView* view = panel.trainingView();

    // The file's points of the source the view shows, by step.
    const QString source = view->source();
    QVERIFY(!source.isEmpty());
    std::vector<QJsonObject> points;
    for (const auto& p : m_json["over_training"].toArray())
      if (p.toObject()["source"].toString() == source) points.push_back(p.toObject());
    std::sort(points.begin(), points.end(), [](const QJsonObject& a, const QJsonObject& b) {
      return a["step"].toInteger() < b["step"].toInteger();
    });
    QVERIFY(points.size() >= 2);
    QCOMPARE(int(view->steps().size()), int(points.size()));
    const int layers = m_json["layers"].toInt(), nHeads = m_json["heads"].toInt();
    widgets::ScatterPlot* lines = view->lines();
    QCOMPARE(lines->panelCount(), layers > 1 ? 2 : 1);
    for (int l = 0; l < layers; ++l)
      for (int h = 0; h < nHeads; ++h) {
        const QVector<QPointF> line = pointsOf(lines->graph(0, l * (nHeads + 1) + h));
        QCOMPARE(line.size(), int(points.size()));
        for (std::size_t k = 0; k < points.size(); ++k) {
          QCOMPARE(line[int(k)].x(), double(points[k]["step"].toInteger()));
          QCOMPARE(line[int(k)].y(),
                   points[k]["median_entropy"].toArray()[l * nHeads + h].toDouble());
        }
      }
    for (int l = 1; l < layers; ++l)
      for (int h = 0; h < nHeads; ++h) {
        const QVector<QPointF> line = pointsOf(lines->graph(1, (l - 1) * (nHeads + 1) + h));
        for (std::size_t k = 0; k < points.size(); ++k)
          QCOMPARE(
              line[int(k)].y(),
              points[k]["median_jsd_to_layer_below"].toArray()[(l - 1) * nHeads + h].toDouble());
      }

    // The slider starts at the latest step; Home moves the violins to the first step's
    // medians.
    QSlider* slider = view->slider();
    QCOMPARE(view->currentStep(), qint64(points.back()["step"].toInteger()));
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_Home);
    QCOMPARE(slider->value(), 0);
    QCOMPARE(view->currentStep(), qint64(points.front()["step"].toInteger()));
    widgets::ViolinGrid* violins = view->violins();
    QCOMPARE(violins->rows(), layers);
    for (int l = 0; l < layers; ++l)
      for (int h = 0; h < nHeads; ++h)
        QCOMPARE(violins->summary(l, h).median,
                 points.front()["median_entropy"].toArray()[l * nHeads + h].toDouble());
    QVERIFY(violins->title().contains(QString("step %1").arg(points.front()["step"].toInteger())));
    QVERIFY(violins->title().contains("medians only"));
    QTest::keyClick(slider, Qt::Key_Right);
    QCOMPARE(view->currentStep(), qint64(points[1]["step"].toInteger()));
    // The lines' marker stands at that step in every panel.
    for (int p = 0; p < lines->panelCount(); ++p) {
      QCOMPARE(lines->panel(p).marker, std::optional<double>(points[1]["step"].toInteger()));
      const QCPGraph* marker = lines->markerGraph(p);
      QVERIFY(marker != nullptr && marker->visible());
      for (const QPointF& at : pointsOf(marker))
        QCOMPARE(at.x(), double(points[1]["step"].toInteger()));
    }
    // The Violins box switches them to the JSD medians of that step.
    panel.findChild<QComboBox*>("analysisStatisticBox")->setCurrentIndex(1);
    QCOMPARE(violins->rows(), layers - 1);
    for (int l = 1; l < layers; ++l)
      for (int h = 0; h < nHeads; ++h)
        QCOMPARE(violins->summary(l - 1, h).median,
                 points[1]["median_jsd_to_layer_below"].toArray()[(l - 1) * nHeads + h].toDouble());
    QVERIFY(saveShot(panel, "over-training"));
  }

  // Every new view exports as PNG, SVG and PDF; the SVG carries the title and axis labels,
  // the same text as attnlab-cli export writes for the figure.
  void newViewsExportInEveryFormat() {
    app::RunSession run(m_run, Qt::red);
    app::AnalysisPanel panel;
    panel.resize(1400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy loaded(&panel, &app::AnalysisPanel::reportLoaded);
    panel.setRuns({&run});
    QVERIFY(loaded.wait(10000));
    struct Case {
      app::AnalysisPanel::View view;
      int display;  // similarity: 0 matrix, 1 MDS
      QString figure;
      QString label;
    };
    const Case cases[] = {
        {app::AnalysisPanel::View::HeadSummaries, 0, "clark-fig2", "mean attention (fraction)"},
        {app::AnalysisPanel::View::HeadSimilarity, 0, "head-jsd-matrix", "head (layer, head)"},
        {app::AnalysisPanel::View::HeadSimilarity, 1, "head-jsd-mds", "MDS axis 1 (JSD, bits)"},
        {app::AnalysisPanel::View::Guidance, 0, "guidance-conformity",
         "mean total-variation distance (0 = follows the pattern)"},
        {app::AnalysisPanel::View::OverTraining, 0, "training-statistics",
         "median row entropy (nats)"},
        {app::AnalysisPanel::View::Rollout, 0, "rollout-spread",
         "mean sum_j R_ij |i - j| (tokens)"},
        {app::AnalysisPanel::View::Norms, 0, "norm-weight-correlation",
         "Pearson r (left); mean norm of f, relative (right)"},
        {app::AnalysisPanel::View::Lens, 0, "logit-lens", "fraction ranked first"},
    };
    for (const Case& c : cases) {
      panel.setView(c.view);
      if (c.view == app::AnalysisPanel::View::HeadSimilarity)
        panel.similarityView()->setDisplay(c.display);
      QCOMPARE(panel.currentFigureName(), c.figure);
      for (const char* ext : {"png", "svg", "pdf"}) {
        const QString path = m_dir.filePath(c.figure + "." + ext);
        QCOMPARE(panel.exportFigure(path), QString());
        QVERIFY2(QFileInfo(path).size() > 0, qPrintable(path));
      }
      QVERIFY(!QImage(m_dir.filePath(c.figure + ".png")).isNull());
      const QStringList texts = svgTexts(m_dir.filePath(c.figure + ".svg"));
      QVERIFY2(texts.contains(c.label), qPrintable(c.figure + ": " + texts.join(" | ")));
      QVERIFY(texts.join(" ").contains("step 8"));
      const QString cli = m_dir.filePath(c.figure + "-cli.svg");
      const auto r = tests::runCli(
          {"export", m_run, "--figure", c.figure, "--format", "svg", "--out", cli, "--step", "8"});
      QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
      QCOMPARE(texts, svgTexts(cli));
    }
  }

  // Rollout, weights against norms and the logit lens: each view draws the report's numbers
  // (read here with Qt's JSON parser), the lens marks its half-accuracy layer; a report
  // without a summary says which switch left it out, and has nothing to export there.
  void beyondWeightsViewsDrawTheReportsNumbers() {
    app::RunSession run(m_run, Qt::red);
    app::AnalysisPanel panel;
    panel.resize(1400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy loaded(&panel, &app::AnalysisPanel::reportLoaded);
    panel.setRuns({&run});
    QVERIFY(loaded.wait(10000));
    const QJsonObject beyond = m_json["beyond_weights"].toObject();

    auto* tabs = panel.viewTabs();
    QTest::mouseClick(tabs->tabBar(), Qt::LeftButton, {}, tabs->tabBar()->tabRect(5).center());
    QCOMPARE(panel.view(), app::AnalysisPanel::View::Rollout);
    auto* rollout = panel.rolloutView()->findChild<widgets::ScatterPlot*>("rolloutSpreadPlot");
    QVERIFY(rollout != nullptr && rollout->panelCount() == 3);
    const QJsonArray layers = beyond["rollout"].toObject()["per_layer"].toArray();
    const char* keys[] = {"spread", "diagonal", "entropy"};
    for (int p = 0; p < 3; ++p)
      for (int l = 0; l < layers.size(); ++l)
        QCOMPARE(rollout->panel(p).series[0].y[l], layers[l].toObject()[keys[p]].toDouble());
    QVERIFY(saveShot(panel, "beyond-rollout"));

    panel.setView(app::AnalysisPanel::View::Norms);
    auto* norms = panel.normsView()->findChild<widgets::MatrixHeatmap*>("normCorrelationHeatmap");
    const QJsonArray heads = beyond["norms"].toObject()["per_head"].toArray();
    const int nHeads = m_json["heads"].toInt();
    for (const auto& h : heads) {
      const QJsonObject o = h.toObject();
      QVERIFY(std::abs(norms->drawnCell(0, o["layer"].toInt(), o["head"].toInt()) -
                       o["weight_norm_correlation"].toDouble()) < 1e-6);
    }
    QCOMPARE(norms->valueRange(), std::make_pair(-1.0, 1.0));
    QCOMPARE(int(heads.size()), m_json["layers"].toInt() * nHeads);

    panel.setView(app::AnalysisPanel::View::Lens);
    auto* lens = panel.lensView()->findChild<widgets::ScatterPlot*>("logitLensPlot");
    const QJsonObject lensJson = beyond["lens"].toObject();
    const QJsonArray rows = lensJson["rows"].toArray();
    QCOMPARE(lens->panel(0).series[0].y.size(), qsizetype(rows.size()));
    for (int r = 0; r < rows.size(); ++r) {
      QCOMPARE(lens->panel(0).series[0].y[r], rows[r].toObject()["accuracy"].toDouble());
      QCOMPARE(lens->panel(2).series[0].y[r], rows[r].toObject()["mean_kl_to_output"].toDouble());
    }
    if (lensJson["half_accuracy_row"].isNull()) {
      QVERIFY(!lens->panel(0).marker.has_value());
    } else {
      QCOMPARE(*lens->panel(0).marker, double(lensJson["half_accuracy_row"].toInt()));
    }
    QVERIFY(saveShot(panel, "beyond-lens"));

    // The same report without its lens: the view names the switch.
    QJsonObject json = m_json;
    QJsonObject stripped = beyond;
    stripped.remove("lens");
    json["beyond_weights"] = stripped;
    QDir().mkpath(m_dir.filePath("no-lens"));
    const QString file = m_dir.filePath("no-lens/analysis.json");
    QVERIFY(tests::writeBytes(file, QJsonDocument(json).toJson()));
    panel.openReport(file);
    QVERIFY(loaded.wait(10000));
    QCOMPARE(panel.view(), app::AnalysisPanel::View::Lens);
    QVERIFY2(panel.lensView()->missingText().contains("--no-lens"),
             qPrintable(panel.lensView()->missingText()));
    QCOMPARE(panel.currentFigureName(), QString());
    panel.setView(app::AnalysisPanel::View::Rollout);
    QCOMPARE(panel.currentFigureName(), QString("rollout-spread"));
  }

  // Heads and Pruning: ticking "heads" in the Options popup runs `analyze --heads` from the
  // tab; the views draw the report's numbers (analysis.json read here by Qt), and a report
  // without the heads names the option that adds them.
  void headsViewsDrawTheReportsNumbers() {
    const fs::path copy = fs::path(m_dir.path().toStdString()) / "heads";
    fs::copy(m_run.toStdString(), copy, fs::copy_options::recursive);
    const QString dir = QString::fromStdString(copy.string());
    app::RunSession run(dir, Qt::blue);
    app::AnalysisController controller;
    app::AnalysisPanel panel;
    panel.setAnalysisController(&controller);  // the tab passes its run options itself
    panel.resize(1400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy loaded(&panel, &app::AnalysisPanel::reportLoaded);
    panel.setRuns({&run});
    QVERIFY(loaded.wait(10000));
    panel.setView(app::AnalysisPanel::View::HeadImportance);
    QVERIFY2(panel.headImportanceView()->missingText().contains("--heads"),
             qPrintable(panel.headImportanceView()->missingText()));
    QCOMPARE(panel.currentFigureName(), QString());

    panel.runOptionsButton()->headsField()->setChecked(true);
    QVERIFY(panel.runOptions().cliArguments().contains("--heads"));
    QSignalSpy finished(&controller, &app::AnalysisController::finished);
    loaded.clear();
    QTest::mouseClick(panel.findChild<QPushButton*>("runAnalysisButton"), Qt::LeftButton);
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    QVERIFY(loaded.wait(10000));
    QFile f(dir + "/analysis/step-8/analysis.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject heads =
        QJsonDocument::fromJson(f.readAll()).object()["head_analysis"].toObject();
    QVERIFY(!heads.isEmpty());

    QCOMPARE(panel.view(), app::AnalysisPanel::View::HeadImportance);
    QCOMPARE(panel.currentFigureName(), QString("head-importance"));
    auto* map =
        panel.headImportanceView()->findChild<widgets::MatrixHeatmap*>("headImportanceHeatmap");
    const QJsonArray normalised = heads["importance"].toObject()["normalised"].toArray();
    for (int l = 0; l < normalised.size(); ++l)
      for (int h = 0; h < normalised[l].toArray().size(); ++h)
        QVERIFY(std::abs(map->drawnCell(0, l, h) - normalised[l].toArray()[h].toDouble()) < 1e-6);
    QVERIFY(saveShot(panel, "heads-importance"));

    panel.setView(app::AnalysisPanel::View::Pruning);
    auto* curves = panel.pruningView()->findChild<widgets::ScatterPlot*>("pruningCurvesPlot");
    const QJsonArray pruning = heads["pruning"].toArray();
    QCOMPARE(curves->panelCount(), 2);
    QCOMPARE(curves->panel(0).series.size(), qsizetype(pruning.size()));
    for (int c = 0; c < pruning.size(); ++c) {
      const QJsonArray points = pruning[c].toObject()["points"].toArray();
      for (int p = 0; p < points.size(); ++p) {
        QCOMPARE(curves->panel(0).series[c].y[p], points[p].toObject()["loss"].toDouble());
        QCOMPARE(curves->panel(1).series[c].y[p], points[p].toObject()["accuracy"].toDouble());
      }
    }
    QVERIFY(saveShot(panel, "heads-pruning"));
    const QString png = m_dir.filePath("pruning.png");
    QCOMPARE(panel.exportFigure(png), QString());
    QVERIFY(QImage(png).width() > 0);
  }

  // The run options beside Run analysis are attnlab-cli analyze's: the arguments they give
  // run the CLI to a report of that many sequences and pairs; a missing text file is refused
  // with its name, and nothing is requested.
  void runOptionsAreTheClisOptions() {
    app::RunSession run(m_run, Qt::red);
    app::AnalysisController controller;  // never started: no request gets through
    app::AnalysisPanel panel;
    panel.setAnalysisController(&controller);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRuns({&run});
    app::AnalysisRunOptionsButton* options = panel.runOptionsButton();
    QCOMPARE(panel.runOptions().cliArguments(), QStringList());  // the CLI's defaults
    options->blocksField()->setValue(5);
    options->pairwiseField()->setValue(3);
    const QStringList args = panel.runOptions().cliArguments();
    QCOMPARE(args, (QStringList{"--examples", "5", "--pairwise", "3"}));
    QVERIFY(options->toolTip().contains("first 5 sequences"));
    const QString out = m_dir.filePath("options-report");
    const auto r = tests::runCli(QStringList{"analyze", m_run} + args +
                                 QStringList{"--no-snapshots", "--out", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QFile f(out + "/analysis.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(json["evaluation"].toObject()["sequences"].toInt(), 5);
    QCOMPARE(json["pairwise_jsd"].toObject()["sequences"].toInt(), 3);

    // A text file that is not there: a message naming it, no request.
    const QString missing = m_dir.filePath("no-such-text.txt");
    options->textChoice()->setChecked(true);
    options->textFileField()->setText(missing);
    QCOMPARE(panel.runOptions().textFile, missing);
    QVERIFY(panel.runOptions().cliArguments().contains("--text"));
    QSignalSpy requested(controller.runner(), &app::JobRunner::started);
    auto* runButton = panel.findChild<QPushButton*>("runAnalysisButton");
    QVERIFY(runButton->isEnabled());
    QTest::mouseClick(runButton, Qt::LeftButton);
    QCOMPARE(requested.size(), 0);
    QVERIFY(!controller.isRunning());
    QVERIFY(panel.findChild<QLabel*>("analysisSummary")->text().contains(missing));
    // Back to the validation split: the file no longer matters.
    options->validationChoice()->setChecked(true);
    QVERIFY(panel.runOptions().textFile.isEmpty());
    QVERIFY(panel.runOptions().problem().isEmpty());
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

  // Two reads overlap (the person picked another report before the first was read): only the
  // one asked for last is shown, whichever read ends first.
  void theReportAskedForLastWins() {
    const QString bad = m_dir.filePath("not-a-report-either.json");
    QVERIFY(tests::writeBytes(bad, "{\"format\": \"something-else\"}"));
    const QString good = m_run + "/analysis/step-8/analysis.json";
    const auto settle = [] {
      QThreadPool::globalInstance()->waitForDone();
      QCoreApplication::sendPostedEvents();
      QCoreApplication::processEvents();
    };
    app::AnalysisPanel panel;
    QSignalSpy loaded(&panel, &app::AnalysisPanel::reportLoaded);
    QSignalSpy failed(&panel, &app::AnalysisPanel::loadFailed);
    panel.openReport(good);
    panel.openReport(bad);
    QVERIFY(failed.wait(10000));
    settle();
    QCOMPARE(loaded.size(), 0);
    QVERIFY(panel.report() == nullptr);

    panel.openReport(bad);
    panel.openReport(good);
    QVERIFY(loaded.wait(10000));
    settle();
    QCOMPARE(failed.size(), 1);
    QCOMPARE(panel.reportPath(), good);
  }
};

QTEST_MAIN(TestAnalysisPanel)
#include "test_analysis_panel.moc"
