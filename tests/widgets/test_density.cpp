// Violin statistics against hand-computed values: quantiles (type 7), Silverman's bandwidth,
// the Gaussian KDE, and the binned KDE against the exact one.
#include "widgets/plots/density.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

using namespace attnlab::widgets;

namespace {

double integrate(const Density& d) {
  double area = 0.0;
  for (std::size_t i = 1; i < d.x.size(); ++i)
    area += 0.5 * (d.y[i] + d.y[i - 1]) * (d.x[i] - d.x[i - 1]);
  return area;
}

}  // namespace

class TestDensity : public QObject {
  Q_OBJECT
 private slots:
  void quantilesInterpolateLinearly() {
    // numpy.quantile([1, 2, 3, 4], [.25, .5, .75]) = 1.75, 2.5, 3.25
    const Quartiles q = quartiles({4, 1, 3, 2});
    QCOMPARE(q.q1, 1.75);
    QCOMPARE(q.median, 2.5);
    QCOMPARE(q.q3, 3.25);
    QCOMPARE(quantileSorted({1, 2, 3, 4}, 0.0), 1.0);
    QCOMPARE(quantileSorted({1, 2, 3, 4}, 1.0), 4.0);
    QCOMPARE(quantileSorted({7}, 0.3), 7.0);
    QVERIFY(std::isnan(quantileSorted({}, 0.5)));
  }

  void nonFiniteSamplesAreSkipped() {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const Quartiles q = quartiles({nan, 1, 2, 3, inf});
    QCOMPARE(q.median, 2.0);
    QVERIFY(std::isnan(quartiles({nan}).median));
  }

  void silvermanMatchesTheFormula() {
    // [1..5]: sd = sqrt(2.5) = 1.5811, IQR = 4 - 2 = 2, IQR/1.34 = 1.4925 (the smaller);
    // h = 0.9 * 1.4925 * 5^(-1/5) = 0.973585
    QVERIFY(qAbs(silvermanBandwidth({1, 2, 3, 4, 5}) - 0.9735846228506357) < 1e-12);
    // Constant samples still give a positive width.
    QVERIFY(silvermanBandwidth({2, 2, 2}) > 0.0);
  }

  void exactKdeMatchesHandValues() {
    DensityOptions o;
    o.bandwidth = 1.0;
    o.points = 3;
    o.cut = 1.0;  // grid -1, 0, 1
    const Density one = gaussianKde({0.0}, o);
    QCOMPARE(int(one.x.size()), 3);
    QCOMPARE(one.x[1], 0.0);
    QVERIFY(qAbs(one.y[1] - 0.3989422804014327) < 1e-12);   // 1/sqrt(2 pi)
    QVERIFY(qAbs(one.y[0] - 0.24197072451914337) < 1e-12);  // phi(1)
    // Two samples at 0 and 2, evaluated at 1 (the middle grid point of [-1, 3]):
    // (phi(1) + phi(1)) / (2 * 1) = phi(1).
    const Density two = gaussianKde({0.0, 2.0}, o);
    QCOMPARE(two.x[1], 1.0);
    QVERIFY(qAbs(two.y[1] - 0.24197072451914337) < 1e-12);
  }

  void densityIntegratesToOneAndRespectsBounds() {
    std::mt19937 rng(1);
    std::normal_distribution<double> d(2.0, 0.5);
    std::vector<double> v;
    for (int i = 0; i < 400; ++i) v.push_back(d(rng));
    DensityOptions o;
    o.points = 256;
    o.cut = 4.0;
    QVERIFY(qAbs(integrate(gaussianKde(v, o)) - 1.0) < 2e-3);
    o.lowerBound = 2.0;
    const Density clipped = gaussianKde(v, o);
    QCOMPARE(clipped.x.front(), 2.0);
  }

  void binnedKdeIsCloseToExact() {
    std::mt19937 rng(2);
    std::normal_distribution<double> a(1.0, 0.3), b(3.0, 0.6);
    std::vector<double> v;
    for (int i = 0; i < 6000; ++i) v.push_back(i % 3 ? a(rng) : b(rng));
    DensityOptions o;
    o.points = 128;
    const Density exact = gaussianKde(v, o);
    const Density binned = binnedGaussianKde(v, o);
    QCOMPARE(binned.x.size(), exact.x.size());
    double peak = 0.0, worst = 0.0;
    for (std::size_t i = 0; i < exact.y.size(); ++i) {
      QVERIFY(qAbs(binned.x[i] - exact.x[i]) < 1e-9);
      peak = std::max(peak, exact.y[i]);
      worst = std::max(worst, qAbs(binned.y[i] - exact.y[i]));
    }
    QVERIFY2(worst < 5e-3 * peak, qPrintable(QString("%1 of %2").arg(worst).arg(peak)));
  }

  void violinStatsSummarise() {
    const ViolinStats s = violinStats({1, 2, 3, 4, 5});
    QCOMPARE(s.count, std::size_t(5));
    QCOMPARE(s.min, 1.0);
    QCOMPARE(s.max, 5.0);
    QCOMPARE(s.quartiles.median, 3.0);
    QCOMPARE(int(s.density.x.size()), 64);
    QVERIFY(qAbs(s.density.bandwidth - 0.9735846228506357) < 1e-12);
    QCOMPARE(violinStats({}).count, std::size_t(0));
  }
};

QTEST_APPLESS_MAIN(TestDensity)
#include "test_density.moc"
