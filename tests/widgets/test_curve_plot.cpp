// Curves: smoothing on full data before thinning, spikes survive, runs overlay with a
// legend, time axes, log y, live appends, export.
#include "widgets/plots/curve_plot.h"

#include <qcustomplot.h>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include "tests/widgets/sample_data.h"
#include "tests/widgets/widget_test_support.h"
#include "widgets/plots/curve_decimation.h"

using namespace attnlab::widgets;

class TestCurvePlot : public QObject {
  Q_OBJECT
 private slots:
  void millionPointsKeepTheirSpike() {
    CurvePlot w;
    w.resize(1000, 600);
    std::vector<double> x(1000000), y(1000000);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(i + 1), y[i] = 3.0;
    y[500000] = 50.0;
    w.setSmoothing(0.0);
    w.setSeries("run", x, y);
    w.replotNow();
    const auto [lx, ly] = w.displayedLine("run");
    QVERIFY2(lx.size() < 5000, qPrintable(QString::number(lx.size())));
    QCOMPARE(*std::max_element(ly.begin(), ly.end()), 50.0);
    QCOMPARE(w.pointCount("run"), std::size_t(1000000));
  }

  void smoothingIsAppliedBeforeThinning() {
    CurvePlot w;
    w.resize(900, 600);
    const sample::Curve c = sample::lossCurve(20000);
    w.setSmoothing(0.9);
    w.setSeries("run", c.steps, c.values);
    w.replotNow();
    // Every drawn point is a point of the smoothed full-resolution series.
    const std::vector<double> full = debiasedEma(c.values, 0.9);
    const auto [lx, ly] = w.displayedLine("run");
    QVERIFY(!lx.empty());
    for (std::size_t i = 0; i < lx.size(); ++i) {
      const auto idx = std::size_t(lx[i]) - 1;  // steps start at 1
      QCOMPARE(ly[i], full[idx]);
    }
    // The raw band is drawn and covers the raw extremes, the line stays inside it.
    const auto env = w.displayedEnvelope("run");
    QVERIFY(!env[0].empty());
    QCOMPARE(*std::max_element(env[2].begin(), env[2].end()),
             *std::max_element(c.values.begin(), c.values.end()));
  }

  void runsOverlayWithLegend() {
    CurvePlot w;
    w.resize(900, 600);
    const sample::Curve a = sample::lossCurve(3000, 1), b = sample::lossCurve(3000, 2, 3.0);
    w.setSeries("baseline", a.steps, a.values);
    w.setSeries("realformer", b.steps, b.values);
    w.setTitle("MLM loss");
    w.setYLabel("loss", "nats");
    QCOMPARE(w.runs(), (QStringList{"baseline", "realformer"}));
    QCOMPARE(w.customPlot()->legend->itemCount(), 2);
    QCOMPARE(w.customPlot()->yAxis->label(), QString("loss (nats)"));
    w.removeSeries("baseline");
    QCOMPARE(w.customPlot()->legend->itemCount(), 1);
    QTemporaryDir dir;
    w.setSeries("baseline", a.steps, a.values);
    const QString problem = testing::checkExports(w, dir.path(), "curves");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    // The legend names are in the vector file.
    QVERIFY(testing::readAll(dir.filePath("curves.svg")).contains("realformer"));
  }

  void liveAppendEqualsOneShot() {
    CurvePlot live, once;
    const sample::Curve c = sample::lossCurve(5000);
    for (std::size_t from = 0; from < c.steps.size(); from += 700) {
      const std::size_t to = std::min(c.steps.size(), from + 700);
      live.appendPoints("r", {c.steps.begin() + from, c.steps.begin() + to},
                        {c.values.begin() + from, c.values.begin() + to});
    }
    once.setSeries("r", c.steps, c.values);
    live.resize(800, 500);
    once.resize(800, 500);
    live.replotNow();
    once.replotNow();
    QCOMPARE(live.displayedLine("r"), once.displayedLine("r"));
  }

  void runsKeepTheColourTheyWereGiven() {
    CurvePlot w;
    w.resize(800, 500);
    const sample::Curve c = sample::lossCurve(500);
    const QColor orange("#e6550d"), teal("#1b9e77");
    w.setSeries("a", c.steps, c.values);
    w.setSeries("b", c.steps, c.values);
    const QColor paletteB = w.seriesColour("b");
    QCOMPARE(paletteB, w.theme().seriesColour(1));
    w.setSeriesColour("a", orange);
    w.setSeriesColour("later", teal);  // before the series exists
    QCOMPARE(w.seriesColour("a"), orange);
    QCOMPARE(w.seriesColour("b"), paletteB);  // the others keep the palette
    QVERIFY(!w.seriesColour("later").isValid());
    w.appendPoints("later", c.steps, c.values);
    QCOMPARE(w.seriesColour("later"), teal);
    // A theme change and a replaced series keep the chosen colour; the band takes it too.
    w.setTheme(Theme::dark());
    w.setSeries("a", c.steps, c.values);
    w.replotNow();
    QCOMPARE(w.seriesColour("a"), orange);
    QCOMPARE(w.seriesColour("b"), Theme::dark().seriesColour(1));
    const QImage image = w.renderImage(QSize(800, 500));
    bool sawOrange = false;
    for (int y = 0; y < image.height() && !sawOrange; ++y)
      for (int x = 0; x < image.width() && !sawOrange; ++x)
        sawOrange = image.pixelColor(x, y) == orange;
    QVERIFY(sawOrange);
    // An invalid colour goes back to the palette.
    w.setSeriesColour("a", QColor());
    QCOMPARE(w.seriesColour("a"), Theme::dark().seriesColour(0));
  }

  void legendMovesToTheCornerAsked() {
    CurvePlot w;
    w.resize(800, 500);
    const sample::Curve c = sample::lossCurve(300);
    w.setSeries("run", c.steps, c.values);
    QCOMPARE(w.legendAlignment(), Qt::AlignTop | Qt::AlignRight);
    w.setLegendAlignment(Qt::AlignBottom | Qt::AlignRight);
    QCOMPARE(w.legendAlignment(), Qt::AlignBottom | Qt::AlignRight);
    w.replotNow();
    // The legend is drawn in the lower half of the axis rect.
    const QRect legend = w.customPlot()->legend->outerRect();
    const QRect area = w.customPlot()->axisRect()->rect();
    QVERIFY(legend.top() > area.center().y());
    QVERIFY(legend.right() <= area.right() + 1 && legend.left() > area.center().x());
  }

  void timeAxesAndLogY() {
    CurvePlot w;
    w.resize(900, 600);
    const sample::Curve c = sample::lossCurve(2000);
    w.setSeries("r", c.steps, c.values, c.wallSeconds);
    w.setXAxis(CurveXAxis::RelativeTime);
    w.replotNow();
    auto [x, y] = w.displayedLine("r");
    QCOMPARE(x.front(), 0.0);
    QVERIFY(x.back() > 1500 && x.back() < 1900);  // ~0.85 s per step
    w.setXAxis(CurveXAxis::WallTime);
    w.replotNow();
    QVERIFY(w.displayedLine("r").first.front() > 1.6e9);
    w.setLogY(true);
    w.replotNow();
    QCOMPARE(w.customPlot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    QVERIFY(w.customPlot()->yAxis->range().lower > 0);
    QVERIFY(testing::distinctColours(w.renderImage(QSize(900, 600))) > 6);
  }
};

QTEST_MAIN(TestCurvePlot)
#include "test_curve_plot.moc"
