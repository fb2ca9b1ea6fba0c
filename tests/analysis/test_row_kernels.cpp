// The vectorised row arithmetic against double-precision loops written here: the polynomial
// log over the float range, and each sum for row lengths around the 8-lane width (so the
// masked tail is exercised, including where a smoothing constant would leak into it).
#include "analysis/attention/row_kernels.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <vector>

using namespace attnlab::analysis::kernels;

namespace {

std::vector<float> randomRow(std::mt19937& rng, int n, bool withZeros) {
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> a(static_cast<size_t>(n));
  double sum = 0;
  for (auto& x : a) {
    x = withZeros && u(rng) < 0.3f ? 0.0f : std::pow(u(rng), 4.0f);
    sum += x;
  }
  for (auto& x : a) x = static_cast<float>(x / (sum > 0 ? sum : 1.0));
  return a;
}

double xlogx(double x) {
  return x > 0 ? x * std::log(x) : 0.0;
}

bool close(double actual, double expected, double relative) {
  return std::abs(actual - expected) <= relative * std::max(1.0, std::abs(expected));
}

}  // namespace

class TestRowKernels : public QObject {
  Q_OBJECT
 private slots:
  void logMatchesStdLogOverTheFloatRange() {
    double worst = 0;
    for (double x = 1e-37; x < 1e30; x *= 1.0137) {
      const float xf = static_cast<float>(x);
      const F8 v = {xf, xf * 1.5f, xf * 0.7f, xf * 1.01f, xf * 0.99f, xf * 1.3f, xf * 0.6f, xf};
      const F8 l = logPositive(v);
      for (int k = 0; k < 8; ++k) {
        const double expected = std::log(static_cast<double>(v[k]));
        worst = std::max(worst, std::abs(l[k] - expected) / std::max(1.0, std::abs(expected)));
      }
    }
    QVERIFY2(worst < 3e-7, qPrintable(QString::number(worst)));
  }

  void xLogXIsZeroAtZeroAndBelow() {
    const F8 v = {0.0f, -0.5f, 1.0f, 0.5f, 0.0f, -0.0f, 0.25f, 1e-30f};
    const F8 r = xLogX(v);
    QCOMPARE(double(r[0]), 0.0);
    QCOMPARE(double(r[1]), 0.0);
    QCOMPARE(double(r[2]), 0.0);  // 1 ln 1
    QVERIFY(close(r[3], xlogx(0.5), 1e-6));
    QCOMPARE(double(r[5]), 0.0);
    QVERIFY(close(r[6], xlogx(0.25), 1e-6));
  }

  void rowSumsMatchLoops() {
    std::mt19937 rng(3);
    for (int n : {1, 5, 7, 8, 9, 16, 31, 128, 131}) {
      const auto a = randomRow(rng, n, n > 4);
      double mass = 0, e = 0, q = 0;
      for (float x : a) {
        mass += x;
        e += xlogx(x);
        q += double(x) * x;
      }
      const auto s = rowSums(a.data(), n);
      QVERIFY2(close(s.mass, mass, 1e-6), qPrintable(QString("n=%1").arg(n)));
      QVERIFY2(close(s.xLogX, e, 1e-6),
               qPrintable(QString("n=%1: %2 vs %3").arg(n).arg(s.xLogX).arg(e)));
      QVERIFY2(close(s.squares, q, 1e-6), qPrintable(QString("n=%1").arg(n)));
    }
  }

  // A smoothed row: d > 0 lanes past n must not count (they would add d ln d each).
  void affineAndMixtureSumsMaskTheTail() {
    std::mt19937 rng(4);
    for (int n : {1, 3, 8, 13, 64, 70}) {
      const auto a = randomRow(rng, n, true);
      const auto b = randomRow(rng, n, true);
      const float c = 0.999f, d = 0.001f / static_cast<float>(n);
      double affine = 0, mixture = 0;
      for (int j = 0; j < n; ++j) {
        affine += xlogx(double(c) * a[size_t(j)] + d);
        mixture += xlogx(0.5 * c * a[size_t(j)] + 0.5 * c * b[size_t(j)] + d);
      }
      QVERIFY2(close(affineXLogX(a.data(), n, c, d), affine, 1e-6),
               qPrintable(QString("n=%1").arg(n)));
      QVERIFY2(close(mixtureXLogX(a.data(), b.data(), n, 0.5f * c, 0.5f * c, d), mixture, 1e-6),
               qPrintable(QString("n=%1").arg(n)));
    }
  }
};

QTEST_APPLESS_MAIN(TestRowKernels)
#include "test_row_kernels.moc"
