// StreamingDistribution against the sorted sample it stands in for: quantiles, moments,
// histograms, the KDE's mass and bandwidth, merging, and its fixed memory.
#include "analysis/attention/streaming_distribution.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

using namespace attnlab::analysis;

namespace {

// numpy.quantile(values, q) with the default "linear" method, written out.
double sampleQuantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double k = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(k));
  const auto hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (k - std::floor(k)) * (values[hi] - values[lo]);
}

// A bimodal sample inside [0, 5]: a wide bump, a narrow one and a few values at 0 exactly.
std::vector<double> bimodalSample(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> wide(3.0, 0.6), narrow(0.7, 0.05);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const double r = u(rng);
    const double x = r < 0.05 ? 0.0 : r < 0.35 ? narrow(rng) : wide(rng);
    v.push_back(std::clamp(x, 0.0, 5.0));
  }
  return v;
}

double trapezoid(const std::vector<double>& x, const std::vector<double>& y) {
  double area = 0;
  for (std::size_t k = 1; k < x.size(); ++k) area += 0.5 * (y[k] + y[k - 1]) * (x[k] - x[k - 1]);
  return area;
}

StreamingDistribution filled(const std::vector<double>& values, double lo, double hi,
                             int bins = 4096) {
  StreamingDistribution d(lo, hi, bins);
  for (double x : values) d.add(x);
  return d;
}

}  // namespace

class TestStreamingDistribution : public QObject {
  Q_OBJECT
 private slots:
  void rejectsBadRanges() {
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, StreamingDistribution(1.0, 1.0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, StreamingDistribution(2.0, 1.0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, StreamingDistribution(0.0, NAN));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, StreamingDistribution(0.0, 1.0, 0));
    StreamingDistribution rangeless;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, rangeless.add(1.0));
    StreamingDistribution d(0.0, 1.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, d.summarise(0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, d.summarise(10, 1));
  }

  void quantilesMatchTheSortedSampleWithinResolution() {
    const auto values = bimodalSample(200000, 7);
    const auto d = filled(values, 0.0, 5.0);
    QCOMPARE(d.resolution(), 5.0 / 4096);
    for (double q : {0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0}) {
      const double ours = d.quantile(q), ref = sampleQuantile(values, q);
      QVERIFY2(std::abs(ours - ref) <= d.resolution(),
               qPrintable(QString("q=%1: %2 vs %3").arg(q).arg(ours).arg(ref)));
    }
    const auto s = d.summarise();
    QCOMPARE(s.q1, d.quantile(0.25));
    QCOMPARE(s.median, d.quantile(0.5));
    QCOMPARE(s.q3, d.quantile(0.75));
    QCOMPARE(s.resolution, d.resolution());
  }

  void fewValuesGiveTheirQuantiles() {
    // 1..5 over [0, 10] in 1000 bins: numpy gives q1 = 2, median = 3, q3 = 4.
    const auto d = filled({5, 3, 1, 4, 2}, 0.0, 10.0, 1000);
    const auto s = d.summarise();
    QVERIFY(std::abs(s.q1 - 2.0) <= s.resolution);
    QVERIFY(std::abs(s.median - 3.0) <= s.resolution);
    QVERIFY(std::abs(s.q3 - 4.0) <= s.resolution);
    QCOMPARE(s.min, 1.0);
    QCOMPARE(s.max, 5.0);
    QCOMPARE(s.mean, 3.0);
    QCOMPARE(s.count, std::int64_t(5));
    // One repeated value: every quantile is that value.
    const auto one = filled(std::vector<double>(10, 0.3), 0.0, 1.0).summarise();
    QCOMPARE(one.median, 0.3);
    QCOMPARE(one.q1, 0.3);
  }

  void smallSetsInterpolateAsNumpy() {
    // numpy's default "linear" quantiles of small sets, where the order statistic at
    // floor(n q) (what quantile() reported before) misses numpy's value by up to 0.58 here.
    // Expected values from numpy 1.24.2:
    //   /usr/bin/python3 -c "import numpy as np; print([float(np.quantile(V, q))
    //       for q in (0.1, 0.25, 0.5, 0.75, 0.9)])"
    // with V each of the sets below.
    struct Case {
      std::vector<double> values;
      double numpy[5];
    };
    const double qs[5] = {0.1, 0.25, 0.5, 0.75, 0.9};
    const std::vector<Case> cases = {
        {{2.31, 0.47, 1.93, 3.05}, {0.908, 1.565, 2.12, 2.495, 2.828}},
        {{1.386, 1.424, 0.693, 2.079, 1.099, 1.609},
         {0.8959999999999999, 1.17075, 1.4049999999999998, 1.5627499999999999, 1.844}},
        {{0.9, 2.7}, {1.08, 1.35, 1.8, 2.25, 2.52}},
        {{0.12, 0.35, 0.36, 0.41, 0.77, 0.78, 0.80, 1.50, 2.20, 2.25},
         {0.32699999999999996, 0.3725, 0.775, 1.325, 2.205}},
    };
    // Entropies of 64-token rows: [0, ln 64] in the analysis' 4096 bins, and a coarse 16.
    for (const int bins : {4096, 16}) {
      int discriminating = 0;
      for (const Case& c : cases) {
        const auto d = filled(c.values, 0.0, std::log(64.0), bins);
        auto sorted = c.values;
        std::sort(sorted.begin(), sorted.end());
        const auto n = sorted.size();
        for (int k = 0; k < 5; ++k) {
          const double ours = d.quantile(qs[k]);
          QVERIFY2(std::abs(ours - c.numpy[k]) <= d.resolution(),
                   qPrintable(QString("n=%1 q=%2 bins=%3: %4 vs numpy %5")
                                  .arg(n)
                                  .arg(qs[k])
                                  .arg(bins)
                                  .arg(ours, 0, 'g', 17)
                                  .arg(c.numpy[k], 0, 'g', 17)));
          // The independent formula agrees with the pasted numpy values.
          QVERIFY(std::abs(sampleQuantile(c.values, qs[k]) - c.numpy[k]) < 1e-12);
          const double floorNq = sorted[std::min(n - 1, static_cast<std::size_t>(n * qs[k]))];
          if (std::abs(floorNq - c.numpy[k]) > d.resolution()) ++discriminating;
        }
      }
      // At the analysis' resolution every one of these cases tells the two conventions apart.
      if (bins == 4096) QCOMPARE(discriminating, 20);
    }
    // Two values: the median is their midpoint, as numpy's (min and max are kept exactly).
    const auto two = filled({0.9, 2.7}, 0.0, std::log(64.0));
    QCOMPARE(two.quantile(0.5), 1.8);
    QCOMPARE(two.quantile(0.0), 0.9);
    QCOMPARE(two.quantile(1.0), 2.7);
  }

  void momentsAreExact() {
    const auto values = bimodalSample(10000, 3);
    const auto s = filled(values, 0.0, 5.0).summarise();
    double sum = 0;
    for (double x : values) sum += x;
    QVERIFY(std::abs(s.mean - sum / values.size()) < 1e-12);
    QCOMPARE(s.min, *std::min_element(values.begin(), values.end()));
    QCOMPARE(s.max, *std::max_element(values.begin(), values.end()));
  }

  void outOfRangeValuesAreClampedAndCounted() {
    StreamingDistribution d(0.0, 10.0, 100);
    d.add(-1.0);
    d.add(11.0);
    d.add(5.0);
    d.add(NAN);
    QCOMPARE(d.count(), std::int64_t(3));
    QCOMPARE(d.clampedCount(), std::int64_t(2));
    QCOMPARE(d.nonFiniteCount(), std::int64_t(1));
    const auto s = d.summarise(10, 0);
    QCOMPARE(s.clamped, std::int64_t(2));
    QCOMPARE(s.min, -1.0);
    QCOMPARE(s.max, 11.0);
    QCOMPARE(s.histogramCounts.front(), std::int64_t(1));
    QCOMPARE(s.histogramCounts.back(), std::int64_t(1));
    QCOMPARE(s.histogramCounts[5], std::int64_t(1));
    QVERIFY(s.kdeX.empty());
  }

  void coarseHistogramMatchesDirectBinning() {
    const auto values = bimodalSample(50000, 11);
    const auto s = filled(values, 0.0, 5.0).summarise(64, 0);
    QCOMPARE(s.histogramEdges.size(), std::size_t(65));
    QCOMPARE(s.histogramEdges.front(), 0.0);
    QCOMPARE(s.histogramEdges.back(), 5.0);
    std::vector<std::int64_t> direct(64, 0);
    for (double x : values) ++direct[std::min<std::size_t>(std::size_t(x / (5.0 / 64)), 63)];
    QCOMPARE(s.histogramCounts, direct);
    // Bins that do not divide the fine ones still keep every value.
    const auto odd = filled(values, 0.0, 5.0).summarise(37, 0);
    std::int64_t total = 0;
    for (auto c : odd.histogramCounts) total += c;
    QCOMPARE(total, std::int64_t(values.size()));
  }

  void kdeIntegratesToOne() {
    std::mt19937 rng(5);
    std::vector<std::vector<double>> samples;
    samples.push_back(bimodalSample(100000, 1));  // includes a point mass at the bound 0
    std::vector<double> uniform, normal, few;
    std::uniform_real_distribution<double> u(1.0, 2.0);
    std::normal_distribution<double> g(2.5, 0.3);
    for (int i = 0; i < 20000; ++i) uniform.push_back(u(rng));
    for (int i = 0; i < 20000; ++i) normal.push_back(std::clamp(g(rng), 0.0, 5.0));
    for (int i = 0; i < 7; ++i) few.push_back(u(rng));
    samples.push_back(uniform);
    samples.push_back(normal);
    samples.push_back(few);
    samples.push_back(std::vector<double>(100, 4.0));  // one repeated value
    for (const auto& v : samples) {
      const auto s = filled(v, 0.0, 5.0).summarise(40, 64);
      QCOMPARE(s.kdeX.size(), std::size_t(64));
      QCOMPARE(s.kdeDensity.size(), std::size_t(64));
      const double area = trapezoid(s.kdeX, s.kdeDensity);
      QVERIFY2(std::abs(area - 1.0) < 0.03, qPrintable(QString("area %1").arg(area)));
      QVERIFY(s.kdeBandwidth > 0);
      for (double y : s.kdeDensity) QVERIFY(y >= 0);
    }
  }

  void kdeUsesSilvermansBandwidth() {
    std::mt19937 rng(9);
    std::normal_distribution<double> g(2.5, 0.4);
    std::vector<double> v;
    for (int i = 0; i < 50000; ++i) v.push_back(g(rng));
    const auto s = filled(v, 0.0, 5.0).summarise(40, 64);
    double mean = 0, var = 0;
    for (double x : v) mean += x;
    mean /= v.size();
    for (double x : v) var += (x - mean) * (x - mean);
    const double sd = std::sqrt(var / (v.size() - 1));
    const double iqr = sampleQuantile(v, 0.75) - sampleQuantile(v, 0.25);
    const double silverman = 0.9 * std::min(sd, iqr / 1.34) * std::pow(double(v.size()), -0.2);
    const double step = (s.max - s.min) / 63;
    const double expected = std::max(silverman, 0.5 * step);
    QVERIFY2(std::abs(s.kdeBandwidth - expected) < 0.01 * expected,
             qPrintable(QString("%1 vs %2").arg(s.kdeBandwidth).arg(expected)));
    // The curve peaks near the mode at about 1 / (sd sqrt(2 pi)).
    const auto peak = std::max_element(s.kdeDensity.begin(), s.kdeDensity.end());
    QVERIFY(std::abs(s.kdeX[std::size_t(peak - s.kdeDensity.begin())] - 2.5) < 0.1);
    QVERIFY(std::abs(*peak - 1.0 / (0.4 * std::sqrt(2 * std::numbers::pi))) < 0.1);
  }

  void mergeEqualsAddingEverything() {
    const auto values = bimodalSample(30000, 21);
    StreamingDistribution all(0.0, 5.0), a(0.0, 5.0), b(0.0, 5.0);
    for (std::size_t i = 0; i < values.size(); ++i) {
      all.add(values[i]);
      (i % 3 == 0 ? a : b).add(values[i]);
    }
    a.merge(b);
    const auto x = all.summarise(), y = a.summarise();
    QCOMPARE(y.count, x.count);
    QCOMPARE(y.histogramCounts, x.histogramCounts);
    QCOMPARE(y.median, x.median);
    QCOMPARE(y.q1, x.q1);
    QCOMPARE(y.q3, x.q3);
    QCOMPARE(y.min, x.min);
    QCOMPARE(y.max, x.max);
    QVERIFY(std::abs(y.mean - x.mean) < 1e-12);
    for (std::size_t k = 0; k < x.kdeDensity.size(); ++k) {
      QVERIFY(std::abs(y.kdeDensity[k] - x.kdeDensity[k]) < 1e-9 * (1 + x.kdeDensity[k]));
    }
    // A default-constructed distribution adopts the other's range.
    StreamingDistribution empty;
    empty.merge(all);
    QCOMPARE(empty.summarise().median, x.median);
    StreamingDistribution other(0.0, 4.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, a.merge(other));
    StreamingDistribution finer(0.0, 5.0, 100);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, a.merge(finer));
  }

  void addManyTakesFloats() {
    const std::vector<float> xs = {0.5f, 1.5f, 2.5f};
    StreamingDistribution d(0.0, 3.0, 30);
    d.addMany(xs);
    QCOMPARE(d.count(), std::int64_t(3));
    QCOMPARE(d.mean(), 1.5);
  }

  // No values: NaN, not zeros that would read as a real, peaked distribution.
  void emptySummaryIsUndefined() {
    const auto s = StreamingDistribution(0.0, 1.0).summarise();
    QCOMPARE(s.count, std::int64_t(0));
    QVERIFY(std::isnan(s.median) && std::isnan(s.q1) && std::isnan(s.q3) && std::isnan(s.mean));
    QVERIFY(s.kdeX.empty());
    QCOMPARE(s.histogramCounts.size(), std::size_t(40));
  }

  // Violin rows: ascending median, empty distributions (NaN median) last, ties in index order.
  void orderByMedianPutsEmptyLast() {
    std::vector<DistributionSummary> heads(5);
    const double medians[] = {2.0, NAN, 0.5, 2.0, 1.0};
    for (std::size_t i = 0; i < heads.size(); ++i) heads[i].median = medians[i];
    QCOMPARE(orderByMedian(heads), (std::vector<int>{2, 4, 0, 3, 1}));
    QVERIFY(orderByMedian({}).empty());
  }

  void memoryDoesNotGrowWithValues() {
    StreamingDistribution d(0.0, 1.0);
    for (int i = 0; i < 10; ++i) d.add(i / 10.0);
    const std::size_t small = d.memoryBytes();
    for (int i = 0; i < 1000000; ++i) d.add((i % 997) / 997.0);
    QCOMPARE(d.memoryBytes(), small);
    QCOMPARE(small, std::size_t(4096 * sizeof(std::int64_t)));
  }
};

QTEST_APPLESS_MAIN(TestStreamingDistribution)
#include "test_streaming_distribution.moc"
