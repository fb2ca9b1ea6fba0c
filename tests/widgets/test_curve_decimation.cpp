// Debiased EMA and per-pixel-column thinning against hand-computed values.
#include "widgets/plots/curve_decimation.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace attnlab::widgets;

class TestCurveDecimation : public QObject {
  Q_OBJECT
 private slots:
  void debiasedEmaMatchesHandValues() {
    // beta = 0.6: s1 = 0.4, s2 = 0.6*0.4 + 0.4*2 = 1.04, s3 = 0.6*1.04 + 0.4*3 = 1.824;
    // divided by 1 - 0.6^t = 0.4, 0.64, 0.784 -> 1, 1.625, 2.3265306...
    const std::vector<double> s = debiasedEma({1, 2, 3}, 0.6);
    QCOMPARE(s.size(), std::size_t(3));
    QVERIFY(qAbs(s[0] - 1.0) < 1e-12);
    QVERIFY(qAbs(s[1] - 1.625) < 1e-12);
    QVERIFY(qAbs(s[2] - 2.326530612244898) < 1e-12);
  }

  void debiasingKeepsAConstantSeriesConstant() {
    // Without the division by 1 - beta^t the first values would start near 0.
    for (double v : debiasedEma(std::vector<double>(50, 7.0), 0.99)) QVERIFY(qAbs(v - 7.0) < 1e-9);
  }

  void zeroWeightIsIdentityAndNaNPassesThrough() {
    QCOMPARE(debiasedEma({3, 1, 2}, 0.0), (std::vector<double>{3, 1, 2}));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> s = debiasedEma({1, nan, 3}, 0.5);
    QVERIFY(std::isnan(s[1]));
    // The NaN did not enter the average: s3 = (0.5*0.5 + 0.5*3) / (1 - 0.25) = 2.3333
    QVERIFY(qAbs(s[2] - 1.75 / 0.75) < 1e-12);
  }

  void incrementalEmaEqualsBatch() {
    DebiasedEma ema(0.6);
    const std::vector<double> x = {5, 4, 6, 3, 7, 2};
    const std::vector<double> batch = debiasedEma(x, 0.6);
    for (std::size_t i = 0; i < x.size(); ++i) QCOMPARE(ema.push(x[i]), batch[i]);
  }

  void envelopeHoldsMinAndMaxPerColumn() {
    const double x[] = {0, 1, 2, 3};
    const double y[] = {1, 5, 2, -1};
    const Envelope e = minMaxEnvelope(x, y, 4, 0.0, 4.0, 2);
    QCOMPARE(e.x, (std::vector<double>{1, 3}));
    QCOMPARE(e.lower, (std::vector<double>{1, -1}));
    QCOMPARE(e.upper, (std::vector<double>{5, 2}));
  }

  void noSpikeDisappears() {
    const std::size_t n = 1000000;
    std::vector<double> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = double(i), y[i] = std::sin(i * 1e-4);
    y[123457] = 40.0;   // one-point spike up
    y[876543] = -40.0;  // and down
    const Polyline p = decimateMinMax(x.data(), y.data(), n, 0.0, double(n - 1), 800);
    QVERIFY2(p.x.size() <= 4 * 800 + 2, qPrintable(QString::number(p.x.size())));
    QCOMPARE(*std::max_element(p.y.begin(), p.y.end()), 40.0);
    QCOMPARE(*std::min_element(p.y.begin(), p.y.end()), -40.0);
    QVERIFY(std::is_sorted(p.x.begin(), p.x.end()));
    const Envelope e = minMaxEnvelope(x.data(), y.data(), n, 0.0, double(n - 1), 800);
    QCOMPARE(*std::max_element(e.upper.begin(), e.upper.end()), 40.0);
    QCOMPARE(*std::min_element(e.lower.begin(), e.lower.end()), -40.0);
  }

  void zoomKeepsNeighboursOutsideTheRange() {
    std::vector<double> x, y;
    for (int i = 0; i < 100; ++i) x.push_back(i), y.push_back(i % 7);
    const Polyline p = decimateMinMax(x.data(), y.data(), x.size(), 10.5, 20.5, 50);
    QCOMPARE(p.x.front(), 10.0);    // one point before the range
    QCOMPARE(p.x.back(), 21.0);     // and one after, so the line reaches both edges
    QCOMPARE(int(p.x.size()), 12);  // fewer points than columns: all of them
  }
};

QTEST_APPLESS_MAIN(TestCurveDecimation)
#include "test_curve_decimation.moc"
