// Violin grid: the expected number of violins on the image, heads ordered by median,
// colour classes at RealFormer's thresholds, units on the axis, export.
#include "widgets/plots/violin_grid.h"

#include <qcustomplot.h>
#include <QTemporaryDir>
#include <QtTest>

#include <random>

#include "tests/widgets/sample_data.h"
#include "tests/widgets/widget_test_support.h"

using namespace attnlab::widgets;

namespace {

// Samples around `centre` with a small spread.
std::vector<double> around(double centre, unsigned seed, int n = 300) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(centre, 0.2);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}

// Runs of non-background pixels along row y between x0 and x1.
int runsAlong(const QImage& image, int y, int x0, int x1, QRgb background) {
  int runs = 0;
  bool inside = false;
  for (int x = x0; x <= x1; ++x) {
    const bool ink = image.pixel(x, y) != background;
    if (ink && !inside) ++runs;
    inside = ink;
  }
  return runs;
}

}  // namespace

class TestViolinGrid : public QObject {
  Q_OBJECT
 private slots:
  void imageShowsOneViolinPerHead() {
    ViolinGrid w;
    w.resize(900, 700);
    const int rows = 3, heads = 5;
    std::vector<std::vector<double>> samples;
    for (int i = 0; i < rows * heads; ++i) samples.push_back(around(3.0, i + 1));
    w.setSamples(rows, heads, samples);
    w.setTitle("Entropy");
    QCOMPARE(w.violinCount(), rows * heads);
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    const QRgb background = image.pixel(2, 2);
    int counted = 0;
    for (int r = 0; r < rows; ++r) {
      QCPAxisRect* rect = w.rowRect(r);
      // Scan just above the common median (3.0) so the lines across it do not matter.
      const int y = int(rect->axis(QCPAxis::atLeft)->coordToPixel(3.05));
      counted += runsAlong(image, y, rect->left() + 2, rect->right() - 2, background);
    }
    QCOMPARE(counted, rows * heads);
  }

  void headsAreOrderedByMedianAndClassified() {
    ViolinGrid w;
    w.setScale(ViolinScale::entropyNats());
    // One row: medians 5.0, 1.0, 3.0 -> order 1, 2, 0; classes RED, BLUE, YELLOW.
    w.setSamples(1, 3, {around(5.0, 1), around(1.0, 2), around(3.0, 3)});
    QCOMPARE(w.headOrder(0), (std::vector<int>{1, 2, 0}));
    QCOMPARE(w.violinClass(0, 0), ViolinClass::Red);
    QCOMPARE(w.violinClass(0, 1), ViolinClass::Blue);
    QCOMPARE(w.violinClass(0, 2), ViolinClass::Yellow);
    QVERIFY(w.rowRect(0)->axis(QCPAxis::atLeft)->label().contains("nats"));
    auto ticks = qSharedPointerDynamicCast<QCPAxisTickerText>(
        w.rowRect(0)->axis(QCPAxis::atBottom)->ticker());
    QCOMPARE(ticks->ticks().value(0), QString("h1"));
    // The fill colour on the image is the class colour.
    w.resize(700, 400);
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    QCPAxisRect* rect = w.rowRect(0);
    auto colourAt = [&](int slot, double value) {
      return image.pixelColor(int(rect->axis(QCPAxis::atBottom)->coordToPixel(slot)) + 3,
                              int(rect->axis(QCPAxis::atLeft)->coordToPixel(value)) + 4);
    };
    const QColor red = colourAt(2, 5.0), blue = colourAt(0, 1.0), yellow = colourAt(1, 3.0);
    QVERIFY2(red.red() > 180 && red.blue() < 120, qPrintable(red.name()));
    QVERIFY2(blue.blue() > 150 && blue.red() < 120, qPrintable(blue.name()));
    QVERIFY2(yellow.red() > 180 && yellow.green() > 150 && yellow.blue() < 120,
             qPrintable(yellow.name()));
  }

  void jsdUsesBitsAndItsThresholds() {
    const ViolinScale jsd = ViolinScale::jsdBits();
    QCOMPARE(jsd.classify(0.1), ViolinClass::Blue);
    QCOMPARE(jsd.classify(0.5), ViolinClass::Yellow);
    QCOMPARE(jsd.classify(0.9), ViolinClass::Red);
    QCOMPARE(jsd.axisLabel(), QString("JSD (bits)"));
    const ViolinScale e = ViolinScale::entropyNats();
    QCOMPARE(e.classify(4.6), ViolinClass::Red);
    QCOMPARE(e.classify(1.4), ViolinClass::Blue);
    QCOMPARE(e.classify(4.5), ViolinClass::Yellow);
    ViolinGrid w;
    w.setScale(jsd);
    w.setSamples(2, 4, sample::jsdSamples(2, 4, 200));
    // A bounded quantity shows its whole scale, and densities never leave [0, 1].
    const QCPRange r = w.rowRect(0)->axis(QCPAxis::atLeft)->range();
    QVERIFY(r.lower < 0 && r.lower > -0.1 && r.upper > 1 && r.upper < 1.1);
  }

  void twelveByTwelveExports() {
    ViolinGrid w;
    w.setSamples(12, 12, sample::entropySamples(12, 12, 512));
    w.setTitle("Attention entropy");
    QCOMPARE(w.violinCount(), 144);
    QTemporaryDir dir;
    const QString problem = testing::checkExports(w, dir.path(), "violins");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(testing::readAll(dir.filePath("violins.svg")).contains("nats"));
  }
};

QTEST_MAIN(TestViolinGrid)
#include "test_violin_grid.moc"
