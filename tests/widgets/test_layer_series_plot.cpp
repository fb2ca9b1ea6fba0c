// Per-layer series as lines and as a layer x step heatmap.
#include "widgets/plots/layer_series_plot.h"

#include <qcustomplot.h>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/widgets/sample_data.h"
#include "tests/widgets/widget_test_support.h"

using namespace attnlab::widgets;

class TestLayerSeriesPlot : public QObject {
  Q_OBJECT
 private slots:
  void linesOnePerLayerWithUnit() {
    LayerSeriesPlot w;
    std::vector<double> steps;
    w.setSeries("SE layer weight", "sigmoid output", {1, 2, 3},
                Matrix(4, 3, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1, 1, 1}));
    QCOMPARE(w.seriesCount(), 4);
    QCOMPARE(w.customPlot()->graphCount(), 4);
    QCOMPARE(w.customPlot()->graph(3)->name(), QString("L3"));
    QCOMPARE(w.customPlot()->yAxis->label(), QString("SE layer weight (sigmoid output)"));
    QCOMPARE(w.customPlot()->legend->itemCount(), 4);
  }

  void heatmapPlacesLayersAndSteps() {
    LayerSeriesPlot w;
    w.resize(800, 500);
    // Layer 2 is high at the last step only.
    Matrix m(3, 5, 0.1f);
    m.at(2, 4) = 0.9f;
    w.setSeries("temperature", "", {10, 20, 30, 40, 50}, m);
    w.setView(LayerSeriesView::Heatmap);
    QCOMPARE(w.heatmapColumns(), 5);
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    QCPAxis* x = w.customPlot()->xAxis;
    QCPAxis* y = w.customPlot()->yAxis;
    const QColor hot = image.pixelColor(int(x->coordToPixel(50)), int(y->coordToPixel(2)));
    const QColor cold = image.pixelColor(int(x->coordToPixel(10)), int(y->coordToPixel(2)));
    QVERIFY2(hot.lightness() > cold.lightness() + 60, qPrintable(hot.name() + cold.name()));
  }

  // The legend keeps its own height at the top right: its rows are not spread over the plot's
  // height (they were, one entry at the top and the next far below).
  void legendKeepsItsHeightAtTheTop() {
    LayerSeriesPlot w;
    w.resize(800, 600);
    w.setSeries("masked share", "fraction", {10, 20, 30}, Matrix(2, 3, 0.5f));
    w.replotNow();
    QCPLegend* legend = w.customPlot()->legend;
    const QRect box = legend->outerRect();
    const QRect plot = w.customPlot()->axisRect()->outerRect();
    QVERIFY2(box.height() <= legend->minimumOuterSizeHint().height() + 4,
             qPrintable(QStringLiteral("legend %1 px high for %2 px of rows")
                            .arg(box.height())
                            .arg(legend->minimumOuterSizeHint().height())));
    QVERIFY(box.top() <= plot.top() + 4);
    QVERIFY(box.left() >= plot.right());
  }

  void heatmapRowAxisSaysWhatTheRowsAre() {
    LayerSeriesPlot w;
    w.setSeries("temperature/q", "temperature", {0, 50}, Matrix(4, 2, 1.0f),
                {"L0 H0", "L0 H1", "L1 H0", "L1 H1"});
    w.setView(LayerSeriesView::Heatmap);
    QCOMPARE(w.customPlot()->yAxis->label(), QString("layer"));
    w.setRowAxisTitle("layer, head");
    QCOMPARE(w.customPlot()->yAxis->label(), QString("layer, head"));
    // Lines keep the value on the y axis; the title comes back with the heatmap.
    w.setView(LayerSeriesView::Lines);
    QCOMPARE(w.customPlot()->yAxis->label(), QString("temperature/q (temperature)"));
    w.setView(LayerSeriesView::Heatmap);
    QCOMPARE(w.customPlot()->yAxis->label(), QString("layer, head"));
  }

  void unevenStepsAreResampled() {
    LayerSeriesPlot w;
    w.setSeries("x", "", {0, 1, 2, 100}, Matrix(1, 4, {1, 2, 3, 4}));
    w.setView(LayerSeriesView::Heatmap);
    QCOMPARE(w.heatmapColumns(), 8);
  }

  void bothViewsExport() {
    LayerSeriesPlot w;
    std::vector<double> steps;
    w.setSeries("ASA masking proportion", "fraction", steps = {}, Matrix());
    const Matrix m = sample::maskingProportion(6, 50, &steps);
    w.setSeries("ASA masking proportion", "fraction", steps, m);
    w.setTitle("ASA masking proportion");
    QTemporaryDir dir;
    QString problem = testing::checkExports(w, dir.path(), "lines");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    w.setView(LayerSeriesView::Heatmap);
    problem = testing::checkExports(w, dir.path(), "heat");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(testing::readAll(dir.filePath("heat.svg")).contains("fraction"));
  }
};

QTEST_MAIN(TestLayerSeriesPlot)
#include "test_layer_series_plot.moc"
