// Variants panel: one plot per per-layer series of the first selected run, [L, H] series
// flattened to L*H labelled rows, live rows, the view toggle, the no-content state and the
// signal the window uses to show the tab.
#include "app/gui/panels/variants_panel.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QLabel>
#include <QtTest>

#include <cmath>
#include <memory>

using namespace attnlab::app;
namespace widgets = attnlab::widgets;

namespace {

// `count` rows from step `first` (every `every` steps) of a series shaped like the real one.
LayerSeries series(const QString& name, std::vector<std::int64_t> shape, int first, int count,
                   int every = 50) {
  LayerSeries s;
  s.name = name;
  s.innerShape = shape;
  if (name == "asa/mask_proportion") {
    s.unit = "fraction";
    s.meaning = "ASA: share of real (query, key) cells the adversary masks, per layer";
  } else if (name == "squeeze/weights") {
    s.unit = "weight";
    s.meaning = "SesameBERT: excitation output s_l per encoder layer (batch mean)";
  } else {
    s.unit = "temperature";
    s.meaning = "Learned temperature of the " + name.section('/', -1) + ", per layer and head";
  }
  const std::int64_t rows = s.rowSize();
  for (int i = 0; i < count; ++i) {
    const double step = first + i * every;
    s.steps.push_back(step);
    const double t = step / 2000.0;
    for (std::int64_t r = 0; r < rows; ++r) {
      double v = 0;
      if (name == "asa/mask_proportion")
        v = 0.02 + (0.1 + 0.015 * r) * (1 - std::exp(-4 * t)) + 0.004 * std::sin(step * 0.1 + r);
      else if (name == "squeeze/weights")
        v = 0.5 + (0.3 - 0.05 * r) * (1 - std::exp(-3 * t)) + 0.01 * std::cos(step * 0.07 + r);
      else
        v = 1.0 + 0.4 * std::sin(0.7 * r) * (1 - std::exp(-2 * t));
      s.values.push_back(float(v));
    }
  }
  return s;
}

RunUpdate rows(int first, int count, int layers = 4, int heads = 6) {
  RunUpdate u;
  u.layerSeries["asa/mask_proportion"] = series("asa/mask_proportion", {layers}, first, count);
  u.layerSeries["temperature/q"] = series("temperature/q", {layers, heads}, first, count);
  return u;
}

bool showPanel(VariantsPanel& panel) {
  panel.resize(1100, 700);
  panel.show();
  return QTest::qWaitForWindowExposed(&panel);
}

}  // namespace

class TestVariantsPanel : public QObject {
  Q_OBJECT
 private slots:
  void rowsOverStepsAndLabels() {
    const LayerSeries s = series("temperature/k", {2, 3}, 0, 4);
    const widgets::Matrix m = VariantsPanel::rowsOverSteps(s);
    QCOMPARE(m.rows, 6);
    QCOMPARE(m.cols, 4);
    // Column i is the logged row of step i; row l * H + h is (layer l, head h).
    for (int i = 0; i < 4; ++i)
      for (int r = 0; r < 6; ++r) QCOMPARE(m.at(r, i), s.values[std::size_t(i * 6 + r)]);
    QCOMPARE(VariantsPanel::rowLabels(s),
             (QStringList{"L0 H0", "L0 H1", "L0 H2", "L1 H0", "L1 H1", "L1 H2"}));
    QCOMPARE(VariantsPanel::rowLabels(series("squeeze/weights", {3}, 0, 1)),
             (QStringList{"L0", "L1", "L2"}));
  }

  void onePlotPerSeries() {
    VariantsPanel panel;
    QVERIFY(showPanel(panel));
    RunSession run("/tmp/runs/asa", QColor("#1f77b4"));
    RunUpdate u = rows(0, 20);
    u.layerSeries["squeeze/weights"] = series("squeeze/weights", {4}, 0, 20);
    // The health stream's series belong to the Health tab, not here.
    u.layerSeries["health/entropy_mean"] = series("health/entropy_mean", {4, 6}, 0, 20);
    run.applyUpdate(u);
    panel.setRuns({&run});
    QVERIFY(panel.hasContent());
    QCOMPARE(panel.seriesNames(),
             (QStringList{"asa/mask_proportion", "squeeze/weights", "temperature/q"}));
    widgets::LayerSeriesPlot* asa = panel.plotFor("asa/mask_proportion");
    QVERIFY(asa != nullptr && asa->isVisible());
    QCOMPARE(asa->seriesCount(), 4);
    QVERIFY(asa->title().startsWith("ASA: share of real"));
    QCOMPARE(asa->view(), widgets::LayerSeriesView::Lines);
    QCOMPARE(asa->customPlot()->yAxis->label(), QString("asa/mask_proportion (fraction)"));
    QCOMPARE(asa->customPlot()->graph(0)->name(), QString("L0"));
    QCOMPARE(asa->customPlot()->graph(0)->dataCount(), 20);
    // [L, H] gives L * H rows; more than fit as lines: a heatmap by default.
    widgets::LayerSeriesPlot* temp = panel.plotFor("temperature/q");
    QCOMPARE(temp->seriesCount(), 24);
    QCOMPARE(temp->view(), widgets::LayerSeriesView::Heatmap);
    QCOMPARE(temp->heatmapColumns(), 20);
    QVERIFY(temp->title().contains("temperature of the q"));
    QCOMPARE(temp->customPlot()->yAxis->label(), QString("layer, head"));

    // The view toggle redraws every plot.
    auto* view = panel.findChild<QComboBox*>("variantsView");
    view->setCurrentIndex(view->findText("Lines"));
    QCOMPARE(temp->view(), widgets::LayerSeriesView::Lines);
    QCOMPARE(temp->customPlot()->graphCount(), 24);
    QCOMPARE(temp->customPlot()->graph(7)->name(), QString("L1 H1"));
    view->setCurrentIndex(view->findText("Heatmap"));
    QCOMPARE(asa->view(), widgets::LayerSeriesView::Heatmap);
    QCOMPARE(asa->heatmapColumns(), 20);
    panel.setView(VariantsPanel::View::Automatic);
    QCOMPARE(asa->view(), widgets::LayerSeriesView::Lines);
    QCOMPARE(temp->view(), widgets::LayerSeriesView::Heatmap);
  }

  void liveRowsUpdateThePlots() {
    VariantsPanel panel;
    QVERIFY(showPanel(panel));
    RunSession run("/tmp/runs/asa", QColor("#1f77b4"));
    run.applyUpdate(rows(0, 5));
    panel.setRuns({&run});
    widgets::LayerSeriesPlot* asa = panel.plotFor("asa/mask_proportion");
    widgets::LayerSeriesPlot* temp = panel.plotFor("temperature/q");
    QCOMPARE(asa->customPlot()->graph(0)->dataCount(), 5);
    run.applyUpdate(rows(250, 3));
    QTRY_COMPARE(asa->customPlot()->graph(0)->dataCount(), 8);
    QCOMPARE(temp->heatmapColumns(), 8);
    QCOMPARE(panel.plotFor("asa/mask_proportion"), asa);  // the same plot, redrawn
    // A series whose first rows arrive later gets its plot then.
    RunUpdate later;
    later.layerSeries["squeeze/weights"] = series("squeeze/weights", {4}, 400, 2);
    run.applyUpdate(later);
    QTRY_VERIFY(panel.plotFor("squeeze/weights") != nullptr);
    QCOMPARE(panel.seriesNames().size(), 3);
    // Hidden: rows wait for the panel to be shown.
    panel.hide();
    run.applyUpdate(rows(550, 2));
    QCoreApplication::processEvents();
    QCOMPARE(asa->customPlot()->graph(0)->dataCount(), 8);
    panel.show();
    QCOMPARE(asa->customPlot()->graph(0)->dataCount(), 10);
  }

  void noContentLabelAndSignal() {
    VariantsPanel panel;
    QVERIFY(showPanel(panel));
    QSignalSpy content(&panel, &VariantsPanel::contentChanged);
    auto* placeholder = panel.findChild<QLabel*>("variantsPlaceholder");
    QVERIFY(placeholder->isVisible());
    RunSession plain("/tmp/runs/plain", QColor("#1f77b4"));
    RunUpdate u;
    u.scalars["train/loss"] = {{1, 2}, {9.0, 8.0}, {1.7e9, 1.7e9 + 1}};
    // A baseline run logs the health stream's series only: nothing for this tab.
    u.layerSeries["health/sink_rate"] = series("health/sink_rate", {5}, 0, 2);
    plain.applyUpdate(u);
    panel.setRuns({&plain});
    QVERIFY(!panel.hasContent());
    QVERIFY(placeholder->isVisible());
    QCOMPARE(placeholder->text(), QString("This run logs no variant quantities."));
    QVERIFY(panel.seriesNames().isEmpty());
    QCOMPARE(content.count(), 0);

    // Selecting a run with series: the window learns it (even with the tab hidden).
    RunSession asa("/tmp/runs/asa", QColor("#d62728"));
    asa.applyUpdate(rows(0, 3));
    panel.hide();
    panel.setRuns({&asa, &plain});
    QCOMPARE(content.count(), 1);
    QCOMPARE(content.last().at(0).toBool(), true);
    QVERIFY(panel.hasContent());
    panel.show();
    QVERIFY(!placeholder->isVisible());
    QCOMPARE(panel.seriesNames().size(), 2);
    panel.setRuns({&plain});
    QCOMPARE(content.count(), 2);
    QCOMPARE(content.last().at(0).toBool(), false);
    QVERIFY(placeholder->isVisible());
    QVERIFY(panel.seriesNames().isEmpty());
    // A run whose series show up in a later batch.
    RunUpdate first;
    first.layerSeries["squeeze/weights"] = series("squeeze/weights", {4}, 0, 2);
    plain.applyUpdate(first);
    QCOMPARE(content.count(), 3);
    QVERIFY(panel.hasContent());
    QTRY_VERIFY(panel.plotFor("squeeze/weights") != nullptr);
    // A destroyed run leaves nothing behind.
    auto gone = std::make_unique<RunSession>("/tmp/runs/gone", QColor("#2ca02c"));
    gone->applyUpdate(rows(0, 2));
    panel.setRuns({gone.get()});
    QCOMPARE(panel.seriesNames().size(), 2);
    gone.reset();
    QVERIFY(!panel.hasContent());
    QTRY_VERIFY(panel.seriesNames().isEmpty());
    QVERIFY(placeholder->text().contains("Select a run"));
  }

  void screenshot() {
    VariantsPanel panel;
    panel.resize(1300, 820);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    RunSession run("/tmp/runs/asa-sesame-temp", QColor("#1f77b4"));
    RunUpdate u;
    u.layerSeries["asa/mask_proportion"] = series("asa/mask_proportion", {6}, 0, 40);
    u.layerSeries["squeeze/weights"] = series("squeeze/weights", {6}, 0, 40);
    u.layerSeries["temperature/q"] = series("temperature/q", {6, 8}, 0, 40);
    u.layerSeries["temperature/k"] = series("temperature/k", {6, 8}, 0, 40);
    u.layerSeries["temperature/v"] = series("temperature/v", {6, 8}, 0, 40);
    run.applyUpdate(u);
    panel.setRuns({&run});
    // The temperatures in the order of the attention formula, not alphabetically.
    QCOMPARE(panel.seriesNames(), (QStringList{"asa/mask_proportion", "squeeze/weights",
                                               "temperature/q", "temperature/k", "temperature/v"}));
    for (const QString& name : panel.seriesNames()) panel.plotFor(name)->replotNow();
    QVERIFY(panel.grab().save("/tmp/panel_variants.png"));
  }
};

QTEST_MAIN(TestVariantsPanel)
#include "test_variants_panel.moc"
