// Classical MDS (head_embedding.h) against configurations whose answer is known: points in
// the plane, their distances computed here, must come back with the same pairwise distances
// (MDS is unique only up to rotation and reflection); the eigensolver against the
// definition A v = lambda v and a 2 x 2 matrix solved by hand.
#include "analysis/attention/head_embedding.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

using namespace attnlab::analysis;

namespace {
std::vector<double> distancesOf(const std::vector<double>& xy, int n, int dims) {
  std::vector<double> d(static_cast<std::size_t>(n * n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < dims; ++k) {
        const double t =
            xy[static_cast<std::size_t>(i * dims + k)] - xy[static_cast<std::size_t>(j * dims + k)];
        s += t * t;
      }
      d[static_cast<std::size_t>(i * n + j)] = std::sqrt(s);
    }
  return d;
}
}  // namespace

class TestHeadEmbedding : public QObject {
  Q_OBJECT
 private slots:
  void twoByTwoEigenByHand() {
    // [[2, 1], [1, 2]]: eigenvalues 3 and 1, eigenvectors (1, 1) and (1, -1) / sqrt 2.
    const SymmetricEigen e = symmetricEigen(std::vector<double>{2, 1, 1, 2}, 2);
    QVERIFY(std::abs(e.values[0] - 3) < 1e-12);
    QVERIFY(std::abs(e.values[1] - 1) < 1e-12);
    QVERIFY(std::abs(std::abs(e.vectors[0]) - std::sqrt(0.5)) < 1e-12);
    QVERIFY(std::abs(e.vectors[0] - e.vectors[1]) < 1e-12);
    QVERIFY(std::abs(e.vectors[2] + e.vectors[3]) < 1e-12);
  }

  void eigenpairsSatisfyTheDefinition() {
    std::mt19937 rng(7);
    std::normal_distribution<double> g;
    const int n = 40;
    std::vector<double> a(static_cast<std::size_t>(n * n));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j)
        a[static_cast<std::size_t>(i * n + j)] = a[static_cast<std::size_t>(j * n + i)] = g(rng);
    const SymmetricEigen e = symmetricEigen(a, n);
    double trace = 0, sum = 0;
    for (int i = 0; i < n; ++i) trace += a[static_cast<std::size_t>(i * n + i)];
    for (int k = 0; k < n; ++k) {
      sum += e.values[static_cast<std::size_t>(k)];
      if (k > 0)
        QVERIFY(e.values[static_cast<std::size_t>(k - 1)] >= e.values[static_cast<std::size_t>(k)]);
      double norm = 0;
      for (int i = 0; i < n; ++i) {
        double av = 0;
        for (int j = 0; j < n; ++j)
          av += a[static_cast<std::size_t>(i * n + j)] *
                e.vectors[static_cast<std::size_t>(k * n + j)];
        const double lv =
            e.values[static_cast<std::size_t>(k)] * e.vectors[static_cast<std::size_t>(k * n + i)];
        QVERIFY2(std::abs(av - lv) < 1e-9, qPrintable(QString("k=%1 i=%2").arg(k).arg(i)));
        norm += e.vectors[static_cast<std::size_t>(k * n + i)] *
                e.vectors[static_cast<std::size_t>(k * n + i)];
      }
      QVERIFY(std::abs(norm - 1) < 1e-9);
    }
    QVERIFY(std::abs(trace - sum) < 1e-9);
  }

  void recoversAPlanarConfiguration() {
    // 30 random points in the plane: their exact distances give them back, rotated or
    // mirrored, so every pairwise distance must match.
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-2, 5);
    const int n = 30;
    std::vector<double> xy(static_cast<std::size_t>(2 * n));
    for (double& v : xy) v = u(rng);
    const std::vector<double> d = distancesOf(xy, n, 2);
    const HeadEmbedding e = classicalMds(d, n, 2);
    QCOMPARE(e.points, n);
    QCOMPARE(e.dims, 2);
    const std::vector<double> back = distancesOf(e.coords, n, 2);
    for (std::size_t i = 0; i < d.size(); ++i) QVERIFY(std::abs(back[i] - d[i]) < 1e-8);
    QVERIFY(std::abs(e.explained - 1.0) < 1e-9);
    // Centred at the origin, as double centring places them.
    double cx = 0, cy = 0;
    for (int i = 0; i < n; ++i)
      cx += e.coords[static_cast<std::size_t>(2 * i)],
          cy += e.coords[static_cast<std::size_t>(2 * i + 1)];
    QVERIFY(std::abs(cx) < 1e-9 && std::abs(cy) < 1e-9);
  }

  void squareCorners() {
    // The unit square's corners by hand: sides 1, diagonals sqrt 2; B has eigenvalues
    // 1, 1 (the plane) and 0, 0.
    const double r = std::sqrt(2.0);
    const std::vector<double> d = {0, 1, r, 1, 1, 0, 1, r, r, 1, 0, 1, 1, r, 1, 0};
    const HeadEmbedding e = classicalMds(d, 4, 2);
    QVERIFY(std::abs(e.eigenvalues[0] - 1) < 1e-12);
    QVERIFY(std::abs(e.eigenvalues[1] - 1) < 1e-12);
    const std::vector<double> back = distancesOf(e.coords, 4, 2);
    for (std::size_t i = 0; i < d.size(); ++i) QVERIFY(std::abs(back[i] - d[i]) < 1e-12);
  }

  void threeDimensionsKeepTheLargestTwo() {
    // Points on a flat box (spread 10 x 4 x 0.1): the 2-D picture keeps x and y, so the
    // distances agree to the thickness, and the explained share is below 1.
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(0, 1);
    const int n = 25;
    std::vector<double> xyz(static_cast<std::size_t>(3 * n)), xy(static_cast<std::size_t>(2 * n));
    for (int i = 0; i < n; ++i) {
      xyz[static_cast<std::size_t>(3 * i)] = xy[static_cast<std::size_t>(2 * i)] = 10 * u(rng);
      xyz[static_cast<std::size_t>(3 * i + 1)] = xy[static_cast<std::size_t>(2 * i + 1)] =
          4 * u(rng);
      xyz[static_cast<std::size_t>(3 * i + 2)] = 0.1 * u(rng);
    }
    const HeadEmbedding e = classicalMds(distancesOf(xyz, n, 3), n, 2);
    const std::vector<double> back = distancesOf(e.coords, n, 2), flat = distancesOf(xy, n, 2);
    for (std::size_t i = 0; i < back.size(); ++i) QVERIFY(std::abs(back[i] - flat[i]) < 0.15);
    QVERIFY(e.explained < 1.0 && e.explained > 0.99);
  }

  void badInputIsRefused() {
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, classicalMds(std::vector<double>{0, 1, 1}, 2));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             classicalMds(std::vector<double>{0, NAN, NAN, 0}, 2));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, classicalMds(std::vector<double>{0}, 1, 0));
    // One point: a single origin.
    const HeadEmbedding one = classicalMds(std::vector<double>{0}, 1);
    QCOMPARE(one.coords, (std::vector<double>{0, 0}));
  }
};

QTEST_APPLESS_MAIN(TestHeadEmbedding)
#include "test_head_embedding.moc"
