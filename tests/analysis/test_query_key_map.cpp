// The query-key map (query_key_map.h, after AttentionViz, Yeh et al. 2023, section 4) against
// what is computed here independently: softmax-invariant normalisation (each query's score
// differences unchanged, centroids met, mean norms equal), a head built in a 2-D plane of R^8
// whose dot products are known, PCA on a line and against C v = lambda v, determinism, and
// the dot-distance correlation against a brute-force sum.
#include "analysis/attention/query_key_map.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace attnlab::analysis;

namespace {

using Rows = std::vector<float>;

Rows randomRows(int rows, int d, unsigned seed, float offset = 0.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g;
  Rows out(static_cast<std::size_t>(rows) * d);
  for (float& v : out) v = g(rng) + offset;
  return out;
}

template <typename A, typename B>
double dot(const A* a, const B* b, int d) {
  double s = 0;
  for (int k = 0; k < d; ++k) s += static_cast<double>(a[k]) * static_cast<double>(b[k]);
  return s;
}

template <typename T>
std::vector<double> meanRow(const std::vector<T>& rows, int d) {
  const std::size_t count = rows.size() / static_cast<std::size_t>(d);
  std::vector<double> mean(static_cast<std::size_t>(d), 0.0);
  for (std::size_t i = 0; i < count; ++i)
    for (int k = 0; k < d; ++k) mean[static_cast<std::size_t>(k)] += rows[i * d + k];
  for (double& v : mean) v /= static_cast<double>(count);
  return mean;
}

double meanNorm(const std::vector<double>& rows, int d) {
  const std::size_t count = rows.size() / static_cast<std::size_t>(d);
  double sum = 0;
  for (std::size_t i = 0; i < count; ++i) sum += std::sqrt(dot(&rows[i * d], &rows[i * d], d));
  return sum / static_cast<double>(count);
}

// An orthonormal basis of R^d (rows) by Gram-Schmidt on random vectors.
std::vector<double> orthonormalBasis(int d, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g;
  std::vector<double> b(static_cast<std::size_t>(d) * d);
  for (int r = 0; r < d; ++r) {
    double* row = &b[static_cast<std::size_t>(r) * d];
    for (int k = 0; k < d; ++k) row[k] = g(rng);
    for (int p = 0; p < r; ++p) {
      const double* prev = &b[static_cast<std::size_t>(p) * d];
      const double c = dot(row, prev, d);
      for (int k = 0; k < d; ++k) row[k] -= c * prev[k];
    }
    const double norm = std::sqrt(dot(row, row, d));
    for (int k = 0; k < d; ++k) row[k] /= norm;
  }
  return b;
}

// Points of the plane (x, y) written into R^d along the first two basis rows.
void embed(Rows& out, double x, double y, const std::vector<double>& basis, int d) {
  for (int k = 0; k < d; ++k)
    out.push_back(static_cast<float>(x * basis[static_cast<std::size_t>(k)] +
                                     y * basis[static_cast<std::size_t>(d + k)]));
}

// Keys' order for query i: by decreasing score, or by increasing distance in the map.
std::vector<int> orderBy(int m, const std::function<double(int)>& key) {
  std::vector<int> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  return order;
}

// Pearson correlation of q.k and ||q - k|| over all pairs, two passes, straight from the
// definition.
double bruteCorrelation(const std::vector<double>& q, int n, const std::vector<double>& k, int m,
                        int d) {
  std::vector<double> x, y;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      x.push_back(dot(&q[static_cast<std::size_t>(i) * d], &k[static_cast<std::size_t>(j) * d], d));
      double s = 0;
      for (int c = 0; c < d; ++c) {
        const double t =
            q[static_cast<std::size_t>(i) * d + c] - k[static_cast<std::size_t>(j) * d + c];
        s += t * t;
      }
      y.push_back(std::sqrt(s));
    }
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / x.size();
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / y.size();
  double sxx = 0, syy = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  return sxy / std::sqrt(sxx * syy);
}

std::vector<double> toDouble(const Rows& r) {
  return std::vector<double>(r.begin(), r.end());
}

}  // namespace

class TestQueryKeyMap : public QObject {
  Q_OBJECT
 private slots:
  void normalisationKeepsEveryQuerysScoreDifferences();
  void normalisationMeetsCentroidsAndNorms();
  void planarHeadDistancesRankLikeDotProducts();
  void pointsOnALineGiveOneComponent();
  void componentsSatisfyTheDefinition();
  void sameInputSamePicture();
  void correlationMatchesBruteForce();
  void normalisationBringsDistanceInLineWithScores();
  void degenerateHeads();
  void badInputIsRefused();
};

void TestQueryKeyMap::normalisationKeepsEveryQuerysScoreDifferences() {
  // Keys far off the queries' centre (offset 3): the translation is large, yet within one
  // query's row every score moves by the same amount, so softmax sees the same row.
  const int n = 7, m = 9, d = 6;
  const Rows q = randomRows(n, d, 1), k = randomRows(m, d, 2, 3.0f);
  const QueryKeyNormalisation norm = queryKeyNormalisation(q, n, k, m, d);
  QVERIFY(norm.normsMatched);
  QVERIFY(norm.scale > 0);
  const NormalisedQueryKeys v = normaliseQueryKeys(norm, q, n, k, m, d);
  for (int i = 0; i < n; ++i) {
    const float* qi = &q[static_cast<std::size_t>(i) * d];
    const double* qv = &v.queries[static_cast<std::size_t>(i) * d];
    for (int j = 0; j < m; ++j)
      for (int jj = 0; jj < m; ++jj) {
        const double before = dot(qi, &k[static_cast<std::size_t>(j) * d], d) -
                              dot(qi, &k[static_cast<std::size_t>(jj) * d], d);
        const double after = dot(qv, &v.keys[static_cast<std::size_t>(j) * d], d) -
                             dot(qv, &v.keys[static_cast<std::size_t>(jj) * d], d);
        QVERIFY2(std::abs(after - before) <= 1e-9 * std::max(1.0, std::abs(before)),
                 qPrintable(QString("i=%1 j=%2 j'=%3").arg(i).arg(j).arg(jj)));
      }
  }
}

void TestQueryKeyMap::normalisationMeetsCentroidsAndNorms() {
  const int n = 11, m = 5, d = 4;
  Rows q = randomRows(n, d, 3, 0.5f);
  const Rows k = randomRows(m, d, 4, -2.0f);
  for (float& x : q) x *= 4.0f;  // query norms well above the keys'
  const QueryKeyNormalisation norm = queryKeyNormalisation(q, n, k, m, d);
  const NormalisedQueryKeys v = normaliseQueryKeys(norm, q, n, k, m, d);
  const std::vector<double> cq = meanRow(v.queries, d), ck = meanRow(v.keys, d);
  for (int c = 0; c < d; ++c)
    QVERIFY(std::abs(cq[static_cast<std::size_t>(c)] - ck[static_cast<std::size_t>(c)]) < 1e-9);
  const double nq = meanNorm(v.queries, d), nk = meanNorm(v.keys, d);
  QVERIFY2(std::abs(nq - nk) <= 1e-9 * nq, qPrintable(QString("%1 vs %2").arg(nq).arg(nk)));
  // The scaling alone keeps each q.(k + c): s q . (k + c) / s.
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      double shifted = 0;
      for (int c = 0; c < d; ++c)
        shifted +=
            static_cast<double>(q[static_cast<std::size_t>(i) * d + c]) *
            (k[static_cast<std::size_t>(j) * d + c] + norm.keyShift[static_cast<std::size_t>(c)]);
      const double scaled = dot(&v.queries[static_cast<std::size_t>(i) * d],
                                &v.keys[static_cast<std::size_t>(j) * d], d);
      QVERIFY(std::abs(scaled - shifted) <= 1e-9 * std::max(1.0, std::abs(shifted)));
    }
}

void TestQueryKeyMap::planarHeadDistancesRankLikeDotProducts() {
  // Queries in +/- pairs (centroid exactly 0) at radii 0.8..1.6, keys on a circle of radius
  // 1 shifted by (3, -1) inside the plane; the plane is embedded in R^8 by a random basis.
  // After normalisation the keys sit on a circle about the origin, so for each query the
  // nearer key in the map is the one with the larger score: the ranks must agree exactly.
  const int d = 8, pairs = 6, n = 2 * pairs, m = 10;
  const std::vector<double> basis = orthonormalBasis(d, 5);
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> angle(0, 2 * M_PI), radius(0.8, 1.6);
  Rows q, k;
  for (int p = 0; p < pairs; ++p) {
    const double a = angle(rng), r = radius(rng);
    embed(q, r * std::cos(a), r * std::sin(a), basis, d);
    for (int c = 0; c < d; ++c) q.push_back(-q[q.size() - static_cast<std::size_t>(d)]);
  }
  for (int j = 0; j < m; ++j)
    embed(k, 3 + std::cos(2 * M_PI * j / m), -1 + std::sin(2 * M_PI * j / m), basis, d);
  const QueryKeyMap map = queryKeyMap(q, n, k, m, d, 2);
  QVERIFY(std::abs(map.explained - 1.0) < 1e-9);
  const auto at = [&](int point, int c) {
    return map.coords[static_cast<std::size_t>(point) * 2 + static_cast<std::size_t>(c)];
  };
  for (int i = 0; i < n; ++i) {
    const auto score = [&](int j) {
      return -dot(&q[static_cast<std::size_t>(i) * d], &k[static_cast<std::size_t>(j) * d], d);
    };
    const auto distance = [&](int j) {
      return std::hypot(at(i, 0) - at(n + j, 0), at(i, 1) - at(n + j, 1));
    };
    const std::vector<int> byScore = orderBy(m, score), byDistance = orderBy(m, distance);
    for (int r = 1; r < m; ++r)  // no near-ties, so the ranks are well defined
      QVERIFY(score(byScore[static_cast<std::size_t>(r)]) -
                  score(byScore[static_cast<std::size_t>(r - 1)]) >
              1e-4);
    QCOMPARE(byDistance, byScore);
  }
}

void TestQueryKeyMap::pointsOnALineGiveOneComponent() {
  // Queries and keys on one affine line a + t v: after normalisation still on a line of
  // direction v, so one component explains everything and it is v up to sign.
  const int d = 5, n = 6, m = 8;
  const std::vector<double> basis = orthonormalBasis(d, 7);
  const double* v = &basis[0];
  const double* a = &basis[static_cast<std::size_t>(d)];  // 2 a: off the line through 0
  Rows q, k;
  for (int i = 0; i < n + m; ++i) {
    const double t = -3 + 0.9 * i + (i % 3) * 0.17;
    Rows& out = i < n ? q : k;
    for (int c = 0; c < d; ++c) out.push_back(static_cast<float>(2 * a[c] + t * v[c]));
  }
  const QueryKeyMap map = queryKeyMap(q, n, k, m, d, 2);
  QVERIFY(map.normalisation.normsMatched);
  QVERIFY(std::abs(map.explained - 1.0) < 1e-9);
  QVERIFY(std::abs(map.eigenvalues[1]) < 1e-9 * map.eigenvalues[0]);
  QVERIFY(std::abs(std::abs(dot(map.components.data(), v, d)) - 1.0) < 1e-9);
  for (int p = 0; p < n + m; ++p)
    QVERIFY(std::abs(map.coords[static_cast<std::size_t>(p) * 2 + 1]) < 1e-6);
}

void TestQueryKeyMap::componentsSatisfyTheDefinition() {
  const int n = 40, m = 30, d = 6, dims = 3;
  const Rows q = randomRows(n, d, 8, 1.0f), k = randomRows(m, d, 9);
  const QueryKeyMap map = queryKeyMap(q, n, k, m, d, dims);
  const NormalisedQueryKeys v = normaliseQueryKeys(map.normalisation, q, n, k, m, d);
  std::vector<double> x(v.queries);
  x.insert(x.end(), v.keys.begin(), v.keys.end());
  const std::vector<double> mean = meanRow(x, d);
  std::vector<double> cov(static_cast<std::size_t>(d) * d, 0.0);
  for (int p = 0; p < n + m; ++p)
    for (int r = 0; r < d; ++r)
      for (int c = 0; c < d; ++c)
        cov[static_cast<std::size_t>(r) * d + c] +=
            (x[static_cast<std::size_t>(p) * d + r] - mean[static_cast<std::size_t>(r)]) *
            (x[static_cast<std::size_t>(p) * d + c] - mean[static_cast<std::size_t>(c)]) / (n + m);
  double trace = 0;
  for (int r = 0; r < d; ++r) trace += cov[static_cast<std::size_t>(r) * d + r];
  double kept = 0;
  for (int c = 0; c < dims; ++c) {
    const double* w = &map.components[static_cast<std::size_t>(c) * d];
    const double lambda = map.eigenvalues[static_cast<std::size_t>(c)];
    kept += lambda;
    if (c > 0) QVERIFY(map.eigenvalues[static_cast<std::size_t>(c - 1)] >= lambda);
    QVERIFY(std::abs(dot(w, w, d) - 1.0) < 1e-9);
    for (int r = 0; r < d; ++r)
      QVERIFY(std::abs(dot(&cov[static_cast<std::size_t>(r) * d], w, d) - lambda * w[r]) < 1e-9);
    // The largest loading is positive.
    QVERIFY(*std::max_element(w, w + d,
                              [](double a, double b) { return std::abs(a) < std::abs(b); }) > 0);
    for (int p = 0; p < n + m; ++p) {
      double proj = 0;
      for (int r = 0; r < d; ++r)
        proj += (x[static_cast<std::size_t>(p) * d + r] - mean[static_cast<std::size_t>(r)]) * w[r];
      QVERIFY(std::abs(map.coords[static_cast<std::size_t>(p) * dims + c] - proj) < 1e-9);
    }
  }
  QVERIFY(std::abs(map.explained - kept / trace) < 1e-12);
  QVERIFY(map.explained < 1.0);
}

void TestQueryKeyMap::sameInputSamePicture() {
  const int n = 25, m = 20, d = 7;
  const Rows q = randomRows(n, d, 10, 0.3f), k = randomRows(m, d, 11, -0.4f);
  const QueryKeyMap a = queryKeyMap(q, n, k, m, d), b = queryKeyMap(q, n, k, m, d);
  QCOMPARE(a.coords, b.coords);  // bitwise
  // The queries in reverse order: the same axes (no mirroring), the same points.
  Rows reversed;
  for (int i = n - 1; i >= 0; --i)
    reversed.insert(reversed.end(), q.begin() + static_cast<std::ptrdiff_t>(i) * d,
                    q.begin() + static_cast<std::ptrdiff_t>(i + 1) * d);
  const QueryKeyMap r = queryKeyMap(reversed, n, k, m, d);
  for (std::size_t c = 0; c < a.components.size(); ++c)
    QVERIFY(std::abs(a.components[c] - r.components[c]) < 1e-9);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < 2; ++c)
      QVERIFY(std::abs(a.coords[static_cast<std::size_t>(i) * 2 + c] -
                       r.coords[static_cast<std::size_t>(n - 1 - i) * 2 + c]) < 1e-9);
  for (std::size_t p = static_cast<std::size_t>(n) * 2; p < a.coords.size(); ++p)
    QVERIFY(std::abs(a.coords[p] - r.coords[p]) < 1e-9);
}

void TestQueryKeyMap::correlationMatchesBruteForce() {
  // 700 x 3000 pairs: several blocks of query rows inside dotDistanceCorrelation.
  const int n = 700, m = 3000, d = 4;
  const std::vector<double> q = toDouble(randomRows(n, d, 12, 0.5f)),
                            k = toDouble(randomRows(m, d, 13, -0.2f));
  const double fast = dotDistanceCorrelation(q, n, k, m, d), slow = bruteCorrelation(q, n, k, m, d);
  QVERIFY2(std::abs(fast - slow) < 1e-12, qPrintable(QString("%1 vs %2").arg(fast).arg(slow)));
  // Equal norms throughout: ||q - k||^2 = 2 - 2 q.k, distance a decreasing function of q.k.
  const std::vector<double> unit = {1, 0, 0, 1, -1, 0, 0, -1};
  QVERIFY(dotDistanceCorrelation(unit, 4, unit, 4, 2) < -0.9);
}

void TestQueryKeyMap::normalisationBringsDistanceInLineWithScores() {
  // Queries eight times longer than the keys, which sit off-centre: raw distances mostly
  // measure how long each query is, not its scores; once the mean norms are equal, distance
  // tracks the score far better.
  const int n = 60, m = 60, d = 16;
  Rows q = randomRows(n, d, 14);
  for (float& x : q) x *= 8.0f;
  const Rows k = randomRows(m, d, 15, 1.0f);
  const QueryKeyNormalisation norm = queryKeyNormalisation(q, n, k, m, d);
  const NormalisedQueryKeys v = normaliseQueryKeys(norm, q, n, k, m, d);
  const double raw = dotDistanceCorrelation(toDouble(q), n, toDouble(k), m, d);
  const double normalised = dotDistanceCorrelation(v.queries, n, v.keys, m, d);
  QVERIFY2(normalised < raw - 0.2 && normalised < -0.5,
           qPrintable(QString("raw %1, normalised %2").arg(raw).arg(normalised)));
}

void TestQueryKeyMap::degenerateHeads() {
  const int d = 3;
  // One query: nothing to scale against; the centroids still meet.
  const Rows one = {1, 2, 3}, k = randomRows(4, d, 16);
  const QueryKeyNormalisation a = queryKeyNormalisation(one, 1, k, 4, d);
  QVERIFY(!a.normsMatched);
  QCOMPARE(a.scale, 1.0);
  const NormalisedQueryKeys v = normaliseQueryKeys(a, one, 1, k, 4, d);
  const std::vector<double> ck = meanRow(v.keys, d);
  for (int c = 0; c < d; ++c) QVERIFY(std::abs(ck[static_cast<std::size_t>(c)] - one[c]) < 1e-12);
  // Every key the same point: every softmax row is uniform.
  const Rows same = {1, 1, 1, 1, 1, 1};
  QVERIFY(!queryKeyNormalisation(randomRows(5, d, 17), 5, same, 2, d).normsMatched);
  // Every point the same: a single dot at the origin, nothing lost.
  const QueryKeyMap map = queryKeyMap(same, 2, same, 2, d, 2);
  QCOMPARE(map.explained, 1.0);
  for (double c : map.coords) QCOMPARE(c, 0.0);
}

void TestQueryKeyMap::badInputIsRefused() {
  const Rows q = randomRows(3, 4, 18), k = randomRows(2, 4, 19);
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, queryKeyMap(q, 3, k, 2, 4, 0));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, queryKeyMap(q, 3, k, 2, 4, 5));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, queryKeyMap({}, 0, k, 2, 4));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, queryKeyMap(q, 3, {}, 0, 4));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, queryKeyMap(q, 3, k, 2, 0));
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, queryKeyMap(q, 2, k, 2, 4));  // 12 for 2 x 4
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, queryKeyNormalisation(q, 3, k, 3, 4));
  Rows bad = k;
  bad[6] = INFINITY;
  try {
    queryKeyMap(q, 3, bad, 2, 4);
    QFAIL("a non-finite key was accepted");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    QVERIFY2(what.find("keys row 1, component 2") != std::string::npos, e.what());
  }
  bad = q;
  bad[0] = NAN;
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, queryKeyNormalisation(bad, 3, k, 2, 4));
  QueryKeyNormalisation norm = queryKeyNormalisation(q, 3, k, 2, 4);
  norm.scale = 0;
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, normaliseQueryKeys(norm, q, 3, k, 2, 4));
  norm.scale = 1;
  norm.keyShift.pop_back();
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, normaliseQueryKeys(norm, q, 3, k, 2, 4));
  const std::vector<double> dq(q.begin(), q.end());
  QVERIFY_THROWS_EXCEPTION(std::invalid_argument, dotDistanceCorrelation(dq, 3, dq, 2, 4));
}

QTEST_APPLESS_MAIN(TestQueryKeyMap)
#include "test_query_key_map.moc"
