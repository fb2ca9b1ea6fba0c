// ScatterPlot with a wrapped legend survives theme changes (a 12-layer model's Clark Fig. 2
// crashed: the wrapped legend's empty cells are null items), and BarChart draws the values it
// is given with a label above each bar at the bar's centre.
#include "widgets/plots/bar_chart.h"
#include "widgets/plots/scatter_plot.h"
#include "widgets/plots/theme.h"

#include <qcustomplot.h>

#include <QtTest>

#include <cmath>

using namespace attnlab::widgets;

class TestScatterAndBars : public QObject {
  Q_OBJECT
 private slots:
  void wrappedLegendTakesThemes() {
    ScatterPlot plot;
    XyPanel panel;
    panel.xLabel = "layer";
    panel.yLabel = "attention";
    // More series than the 8 a legend row holds.
    for (int l = 0; l < 12; ++l) {
      XySeries series;
      series.name = QStringLiteral("L%1").arg(l);
      series.x = {double(l)};
      series.y = {0.1 * l};
      panel.series.push_back(series);
    }
    plot.setPanels({panel});
    plot.setTheme(Theme::dark());
    plot.setTheme(Theme::light());
    QCOMPARE(plot.customPlot()->legend->itemCount() >= 12, true);
    int items = 0;
    for (int i = 0; i < plot.customPlot()->legend->itemCount(); ++i) {
      if (auto* item = plot.customPlot()->legend->item(i)) {
        ++items;
        QCOMPARE(item->textColor(), Theme::light().foreground);
      }
    }
    QCOMPARE(items, 12);
    QVERIFY(!plot.renderImage(QSize(600, 400)).isNull());
  }

  void barsAndTheirLabels() {
    BarChart chart;
    chart.setBars({"a", "b"}, {{"best", {0.5, 0.75}}, {"mean", {0.25, NAN}}});
    QCOMPARE(chart.categoryCount(), 2);
    QCOMPARE(chart.seriesCount(), 2);
    QCOMPARE(chart.value(0, 1), 0.75);
    // One label per finite value, above its bar's centre (2 series of width 0.4, gap 0.02).
    QCustomPlot* p = chart.customPlot();
    QStringList texts;
    for (int i = 0; i < p->itemCount(); ++i) {
      auto* t = qobject_cast<QCPItemText*>(p->item(i));
      QVERIFY(t != nullptr);
      texts << t->text();
      const int s = t->property("barSeries").toInt(), c = t->property("barCategory").toInt();
      QCOMPARE(t->position->coords().x(), c + (s - 0.5) * 0.42);
      QCOMPARE(t->position->coords().y(), chart.value(s, c));
    }
    texts.sort();
    QCOMPARE(texts, QStringList({"0.250", "0.500", "0.750"}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, chart.setBars({"a"}, {{"x", {1.0, 2.0}}}));
    QVERIFY(!chart.renderImage(QSize(400, 300)).isNull());
  }
};

QTEST_MAIN(TestScatterAndBars)
#include "test_scatter_and_bars.moc"
