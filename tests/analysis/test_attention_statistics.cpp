// AttentionStatistics against values known by hand (uniform, one-hot, disjoint rows, a
// hand-built 4x4 attention) and against a direct double-precision implementation of every
// formula written here, plus padding, batching, merging and memory.
#include "analysis/attention/attention_statistics.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

using namespace attnlab::analysis;

namespace {

constexpr double kLn2 = std::numbers::ln2;

// One sequence's attention [L, H, T, T].
struct Sequence {
  int L = 0, H = 0, T = 0;
  std::vector<float> data;
  SequenceRoles roles;
  Sequence(int layers, int heads, int t, int length) : L(layers), H(heads), T(t) {
    data.assign(std::size_t(L) * H * T * T, 0.0f);
    roles.length = length;
    roles.separator.assign(std::size_t(T), 0);
    roles.period.assign(std::size_t(T), 0);
  }
  float& at(int l, int h, int i, int j) { return data[((std::size_t(l) * H + h) * T + i) * T + j]; }
  float at(int l, int h, int i, int j) const {
    return data[((std::size_t(l) * H + h) * T + i) * T + j];
  }
  // Row i of (l, h) cut to the real keys, in double.
  std::vector<double> row(int l, int h, int i) const {
    std::vector<double> r(static_cast<std::size_t>(roles.length));
    for (int j = 0; j < roles.length; ++j) r[std::size_t(j)] = at(l, h, i, j);
    return r;
  }
};

// Random attention: real rows are a softmax of Gaussian logits with a temperature that
// differs by head (so entropies spread), some exact zeros; padding keys carry extra mass
// (dropped by renormalisation) and padding rows hold garbage, NaN included.
Sequence randomSequence(std::mt19937& rng, int L, int H, int T, int length) {
  Sequence s(L, H, T, length);
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int l = 0; l < L; ++l) {
    for (int h = 0; h < H; ++h) {
      const double temperature = 0.3 + 2.5 * ((l * H + h) % 5);
      for (int i = 0; i < T; ++i) {
        if (i >= length) {
          for (int j = 0; j < T; ++j) s.at(l, h, i, j) = (j % 7 == 0) ? NAN : 5 * u(rng) - 1;
          continue;
        }
        double sum = 0;
        std::vector<double> e(static_cast<std::size_t>(T));
        for (int j = 0; j < T; ++j) sum += e[std::size_t(j)] = std::exp(temperature * g(rng));
        for (int j = 0; j < T; ++j) {
          s.at(l, h, i, j) = static_cast<float>(e[std::size_t(j)] / sum);
          if (j < length && u(rng) < 0.05f) s.at(l, h, i, j) = 0.0f;
        }
      }
    }
  }
  if (length > 0) {
    s.roles.separator[std::size_t(length - 1)] = 1;
    for (int j = 1; j < length; j += 4) s.roles.period[std::size_t(j)] = 1;
  }
  return s;
}

// ---- the formulas, written independently of the code under test ----------------------------

std::vector<double> normalised(std::vector<double> p) {
  double s = 0;
  for (double v : p) s += v;
  for (double& v : p) v /= s;
  return p;
}

double refEntropy(const std::vector<double>& raw) {
  double h = 0;
  for (double v : normalised(raw))
    if (v > 0) h -= v * std::log(v);
  return h;
}

// 0.5 KL(p || m) + 0.5 KL(q || m) in nats, rows renormalised, optionally Clark-smoothed.
double refJsdNats(const std::vector<double>& rawP, const std::vector<double>& rawQ,
                  bool smoothing) {
  auto p = normalised(rawP), q = normalised(rawQ);
  if (smoothing) {
    const double n = double(p.size());
    for (double& v : p) v = 0.001 / n + 0.999 * v;
    for (double& v : q) v = 0.001 / n + 0.999 * v;
  }
  double js = 0;
  for (std::size_t j = 0; j < p.size(); ++j) {
    const double m = 0.5 * (p[j] + q[j]);
    if (p[j] > 0) js += 0.5 * p[j] * std::log(p[j] / m);
    if (q[j] > 0) js += 0.5 * q[j] * std::log(q[j] / m);
  }
  return js;
}

double sampleMedian(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const double k = 0.5 * double(v.size() - 1);
  const auto lo = std::size_t(std::floor(k));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (k - std::floor(k)) * (v[hi] - v[lo]);
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

void compareSummaries(const DistributionSummary& a, const DistributionSummary& b) {
  QCOMPARE(a.count, b.count);
  QCOMPARE(a.histogramCounts, b.histogramCounts);
  QCOMPARE(a.mean, b.mean);
  QCOMPARE(a.min, b.min);
  QCOMPARE(a.max, b.max);
  QCOMPARE(a.median, b.median);
  QCOMPARE(a.q1, b.q1);
  QCOMPARE(a.q3, b.q3);
  QCOMPARE(a.kdeDensity, b.kdeDensity);
}

bool sameOrBothNan(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

void compareResults(const AttentionStatisticsResult& a, const AttentionStatisticsResult& b) {
  QCOMPARE(a.sequences, b.sequences);
  QCOMPARE(a.rows, b.rows);
  QCOMPARE(a.skippedRows, b.skippedRows);
  QCOMPARE(a.entropy.size(), b.entropy.size());
  for (std::size_t k = 0; k < a.entropy.size(); ++k) compareSummaries(a.entropy[k], b.entropy[k]);
  QCOMPARE(a.adjacentJsd.size(), b.adjacentJsd.size());
  for (std::size_t k = 0; k < a.adjacentJsd.size(); ++k) {
    compareSummaries(a.adjacentJsd[k], b.adjacentJsd[k]);
  }
  QCOMPARE(a.headOrder, b.headOrder);
  QCOMPARE(a.pairwiseSequencesUsed, b.pairwiseSequencesUsed);
  QCOMPARE(a.pairwiseJsd, b.pairwiseJsd);
  for (std::size_t k = 0; k < a.headSummaries.size(); ++k) {
    QCOMPARE(a.headSummaries[k].first, b.headSummaries[k].first);
    QCOMPARE(a.headSummaries[k].previous, b.headSummaries[k].previous);
    QCOMPARE(a.headSummaries[k].separator, b.headSummaries[k].separator);
  }
  QCOMPARE(a.guidanceDistance.size(), b.guidanceDistance.size());
  for (std::size_t k = 0; k < a.guidanceDistance.size(); ++k) {
    QVERIFY(sameOrBothNan(a.guidanceDistance[k], b.guidanceDistance[k]));
    QVERIFY(sameOrBothNan(a.guidanceMse[k], b.guidanceMse[k]));
  }
}

StatisticsOptions options(LogBase base = LogBase::Bits, bool smoothing = false,
                          std::int64_t pairwise = 0, int threads = 0) {
  StatisticsOptions o;
  o.jsdBase = base;
  o.clarkSmoothing = smoothing;
  o.pairwiseSequences = pairwise;
  o.threads = threads;
  return o;
}

}  // namespace

class TestAttentionStatistics : public QObject {
  Q_OBJECT
 private slots:
  void smoothedJsdMatchesTheFormula() {
    std::mt19937 rng(3);
    std::gamma_distribution<double> g(0.5, 1.0);
    for (int n : {1, 2, 5, 64, 129}) {
      std::vector<double> p(static_cast<std::size_t>(n)), q(static_cast<std::size_t>(n));
      for (auto& v : p) v = g(rng) + 1e-9;
      for (auto& v : q) v = g(rng) + 1e-9;
      p = normalised(p);
      q = normalised(q);
      const std::vector<float> pf(p.begin(), p.end()), qf(q.begin(), q.end());
      const double ref = refJsdNats(std::vector<double>(pf.begin(), pf.end()),
                                    std::vector<double>(qf.begin(), qf.end()), true);
      QVERIFY(std::abs(jensenShannonSmoothed(pf, qf, LogBase::Nats) - ref) < 1e-7);
      QVERIFY(std::abs(jensenShannonSmoothed(pf, qf, LogBase::Bits) - ref / kLn2) < 1e-7);
    }
    // Disjoint rows no longer reach 1 bit once smoothed, identical ones stay at 0.
    std::vector<float> a = {1, 0}, b = {0, 1};
    QVERIFY(jensenShannonSmoothed(a, b) < 1.0 && jensenShannonSmoothed(a, b) > 0.99);
    QVERIFY(jensenShannonSmoothed(a, a) < 1e-12);
    const std::vector<float> single = {1.0f};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, jensenShannonSmoothed(a, single));
    QCOMPARE(kClarkSmoothing, 0.001);
  }

  void uniformRowsGiveLnOfTheRealLength() {
    // T = 16 with 10 real tokens; every row (padding keys included) is uniform over all 16.
    Sequence s(2, 2, 16, 10);
    std::fill(s.data.begin(), s.data.end(), 1.0f / 16);
    AttentionStatistics stats(2, 2, 16, options());
    stats.addSequence(s.data.data(), 16, s.roles);
    const auto r = stats.result();
    QCOMPARE(r.rows, std::int64_t(10));
    for (const auto& e : r.entropy) {
      QCOMPARE(e.count, std::int64_t(10));
      QVERIFY2(std::abs(e.min - std::log(10.0)) < 1e-6, qPrintable(QString::number(e.min)));
      QVERIFY(std::abs(e.max - std::log(10.0)) < 1e-6);
      QVERIFY(std::abs(e.median - std::log(10.0)) < 1e-6);
    }
    for (const auto& j : r.adjacentJsd) QVERIFY(j.max < 1e-6);
  }

  void oneHotRowsGiveZeroEntropy() {
    Sequence s(1, 2, 8, 8);
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 8; ++i) s.at(0, h, i, h == 0 ? i : 0) = 0.7f;  // mass 0.7, renormalised
    AttentionStatistics stats(1, 2, 8, options());
    stats.addSequence(s.data.data(), 8, s.roles);
    const auto r = stats.result();
    for (const auto& e : r.entropy) {
      QCOMPARE(e.count, std::int64_t(8));
      QVERIFY(e.max < 1e-6);
    }
    QVERIFY(r.adjacentJsd.empty());
  }

  void identicalLayersGiveZeroJsdAndDisjointOnesOneBit() {
    std::mt19937 rng(1);
    auto s = randomSequence(rng, 3, 2, 12, 12);
    // Layers 0 and 1 the same (on even keys), layer 2 disjoint from them (on odd keys).
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j) {
          s.at(0, h, i, j) = j % 2 == 0 ? (j + 1) / 42.0f : 0.0f;
          s.at(1, h, i, j) = s.at(0, h, i, j);
          s.at(2, h, i, j) = j % 2 == 1 ? 1.0f / 6 : 0.0f;
        }
    for (const LogBase base : {LogBase::Bits, LogBase::Nats}) {
      AttentionStatistics stats(3, 2, 12, options(base));
      stats.addSequence(s.data.data(), 12, s.roles);
      const auto r = stats.result();
      const double bit = base == LogBase::Bits ? 1.0 : kLn2;
      for (int h = 0; h < 2; ++h) {
        QVERIFY(r.adjacentJsd[std::size_t(h)].max < 1e-6);         // layers 1 vs 0
        const auto& disjoint = r.adjacentJsd[std::size_t(2 + h)];  // layers 2 vs 1
        QVERIFY2(std::abs(disjoint.min - bit) < 1e-6, qPrintable(QString::number(disjoint.min)));
        QVERIFY(std::abs(disjoint.max - bit) < 1e-6);
        QCOMPARE(r.jsdColours[std::size_t(h)], ColourClass::Blue);
        QCOMPARE(r.jsdColours[std::size_t(2 + h)], ColourClass::Red);  // 1 bit, whatever base
      }
    }
  }

  void randomAttentionMatchesTheFormulas() {
    std::mt19937 rng(42);
    const int L = 3, H = 4, T = 20;
    std::vector<Sequence> seqs;
    for (int b = 0; b < 6; ++b) seqs.push_back(randomSequence(rng, L, H, T, b % 2 ? 20 : 13));
    for (const bool smoothing : {false, true}) {
      for (const LogBase base : {LogBase::Bits, LogBase::Nats}) {
        AttentionStatistics stats(L, H, T, options(base, smoothing));
        for (const auto& s : seqs) stats.addSequence(s.data.data(), T, s.roles);
        const auto r = stats.result();
        const double unit = base == LogBase::Bits ? kLn2 : 1.0;
        for (int l = 0; l < L; ++l) {
          for (int h = 0; h < H; ++h) {
            std::vector<double> entropies, jsds;
            for (const auto& s : seqs) {
              for (int i = 0; i < s.roles.length; ++i) {
                entropies.push_back(refEntropy(s.row(l, h, i)));
                if (l > 0)
                  jsds.push_back(refJsdNats(s.row(l, h, i), s.row(l - 1, h, i), smoothing) / unit);
              }
            }
            const auto& e = r.entropy[std::size_t(l * H + h)];
            QCOMPARE(e.count, std::int64_t(entropies.size()));
            QVERIFY2(std::abs(e.mean - mean(entropies)) < 2e-6,
                     qPrintable(QString("%1 vs %2").arg(e.mean).arg(mean(entropies))));
            QVERIFY(std::abs(e.min - *std::min_element(entropies.begin(), entropies.end())) < 1e-5);
            QVERIFY(std::abs(e.max - *std::max_element(entropies.begin(), entropies.end())) < 1e-5);
            QVERIFY(std::abs(e.median - sampleMedian(entropies)) <= e.resolution + 1e-5);
            if (l == 0) continue;
            const auto& j = r.adjacentJsd[std::size_t((l - 1) * H + h)];
            QCOMPARE(j.count, std::int64_t(jsds.size()));
            QVERIFY2(std::abs(j.mean - mean(jsds)) < 1e-5,
                     qPrintable(QString("%1 vs %2").arg(j.mean).arg(mean(jsds))));
            QVERIFY(std::abs(j.min - *std::min_element(jsds.begin(), jsds.end())) < 2e-5);
            QVERIFY(std::abs(j.max - *std::max_element(jsds.begin(), jsds.end())) < 2e-5);
            QVERIFY(std::abs(j.median - sampleMedian(jsds)) <= j.resolution + 2e-5);
          }
        }
      }
    }
  }

  void pairwiseMatchesTheFormula() {
    std::mt19937 rng(8);
    const int L = 2, H = 3, T = 10, lh = L * H;
    std::vector<Sequence> seqs;
    for (int b = 0; b < 4; ++b) seqs.push_back(randomSequence(rng, L, H, T, b == 1 ? 6 : 10));
    for (const bool smoothing : {false, true}) {
      AttentionStatistics stats(L, H, T, options(LogBase::Bits, smoothing, 3));
      for (const auto& s : seqs) stats.addSequence(s.data.data(), T, s.roles);
      const auto r = stats.result();
      QCOMPARE(r.pairwiseSequencesUsed, std::int64_t(3));
      QCOMPARE(r.pairwiseJsd.size(), std::size_t(lh * lh));
      for (int a = 0; a < lh; ++a) {
        QCOMPARE(r.pairwiseJsd[std::size_t(a * lh + a)], 0.0);
        for (int c = 0; c < lh; ++c) {
          if (c == a) continue;
          std::vector<double> v;
          for (int b = 0; b < 3; ++b)  // the first three sequences only
            for (int i = 0; i < seqs[std::size_t(b)].roles.length; ++i)
              v.push_back(refJsdNats(seqs[std::size_t(b)].row(a / H, a % H, i),
                                     seqs[std::size_t(b)].row(c / H, c % H, i), smoothing) /
                          kLn2);
          const double ours = r.pairwiseJsd[std::size_t(a * lh + c)];
          QVERIFY2(std::abs(ours - mean(v)) < 1e-5,
                   qPrintable(QString("%1,%2: %3 vs %4").arg(a).arg(c).arg(ours).arg(mean(v))));
          QCOMPARE(ours, r.pairwiseJsd[std::size_t(c * lh + a)]);
        }
      }
    }
    AttentionStatistics off(L, H, T, options(LogBase::Bits, false, 0));
    off.addSequence(seqs[0].data.data(), T, seqs[0].roles);
    QVERIFY(off.result().pairwiseJsd.empty());
  }

  void paddingIsExcluded() {
    // The same 7 real tokens, once inside T = 12 with garbage around, once cut to T = 7.
    std::mt19937 rng(4);
    const int L = 3, H = 2;
    auto padded = randomSequence(rng, L, H, 12, 7);
    Sequence cut(L, H, 7, 7);
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < 7; ++i)
          for (int j = 0; j < 7; ++j) cut.at(l, h, i, j) = padded.at(l, h, i, j);
    for (int j = 0; j < 7; ++j) {
      cut.roles.separator[std::size_t(j)] = padded.roles.separator[std::size_t(j)];
      cut.roles.period[std::size_t(j)] = padded.roles.period[std::size_t(j)];
    }
    // Padding flags must not count either.
    padded.roles.separator[10] = 1;
    padded.roles.period[11] = 1;
    AttentionStatistics a(L, H, 12, options(LogBase::Bits, false, 10));
    AttentionStatistics b(L, H, 12, options(LogBase::Bits, false, 10));
    a.addSequence(padded.data.data(), 12, padded.roles);
    b.addSequence(cut.data.data(), 7, cut.roles);
    const auto ra = a.result(), rb = b.result();
    QCOMPARE(ra.rows, std::int64_t(7));
    compareResults(ra, rb);
  }

  void handBuiltHeadsGiveKnownSummaries() {
    // 4 tokens; separator at 3, period at 2. Head 0: pure previous-token (row 0 on itself),
    // with rows scaled to mass 0.5 (renormalised); head 1: pure next-token (last row on
    // itself); head 2: uniform.
    Sequence s(1, 3, 4, 4);
    s.roles.separator[3] = 1;
    s.roles.period[2] = 1;
    for (int i = 0; i < 4; ++i) {
      s.at(0, 0, i, i == 0 ? 0 : i - 1) = 0.5f;
      s.at(0, 1, i, i == 3 ? 3 : i + 1) = 1.0f;
      for (int j = 0; j < 4; ++j) s.at(0, 2, i, j) = 0.25f;
    }
    AttentionStatistics stats(1, 3, 4, options());
    stats.addSequence(s.data.data(), 4, s.roles);
    const auto r = stats.result();
    const double eps = 1e-12;
    auto tvd = [&](int head, int pattern) {
      return r.guidanceDistance[std::size_t(head * 5 + pattern)];
    };
    auto mse = [&](int head, int pattern) {
      return r.guidanceMse[std::size_t(head * 5 + pattern)];
    };
    enum { Next, Prev, First, Separator, Period };

    const HeadSummary& prev = r.headSummaries[0];
    QVERIFY(std::abs(prev.previous - 1.0) < eps);  // rows 1..3
    QVERIFY(std::abs(prev.next - 0.0) < eps);      // rows 0..2
    QVERIFY(std::abs(prev.first - 0.5) < eps);     // rows 0 and 1 look at 0
    QVERIFY(std::abs(prev.self - 0.25) < eps);     // row 0
    QVERIFY(std::abs(prev.separator - 0.0) < eps);
    QVERIFY(std::abs(prev.period - 0.25) < eps);  // row 3 looks at 2
    QVERIFY(std::abs(tvd(0, Prev) - 0.0) < eps);
    QVERIFY(std::abs(tvd(0, Next) - 1.0) < eps);
    QVERIFY(std::abs(tvd(0, First) - 0.5) < eps);
    QVERIFY(std::abs(tvd(0, Separator) - 1.0) < eps);
    QVERIFY(std::abs(tvd(0, Period) - 0.75) < eps);
    // (A - P)^2 over the 16 cells, P the raw 0/1 pattern (edge rows all zero):
    QVERIFY(std::abs(mse(0, Prev) - 1.0 / 16) < eps);   // row 0: e0 vs 0
    QVERIFY(std::abs(mse(0, Next) - 7.0 / 16) < eps);   // 2 + 2 + 2 + 1
    QVERIFY(std::abs(mse(0, First) - 4.0 / 16) < eps);  // rows 2, 3
    QVERIFY(std::abs(mse(0, Separator) - 8.0 / 16) < eps);
    QVERIFY(std::abs(mse(0, Period) - 6.0 / 16) < eps);

    const HeadSummary& next = r.headSummaries[1];
    QVERIFY(std::abs(next.next - 1.0) < eps);
    QVERIFY(std::abs(next.previous - 0.0) < eps);
    QVERIFY(std::abs(next.separator - 0.5) < eps);  // rows 2 and 3 look at 3
    QVERIFY(std::abs(tvd(1, Next) - 0.0) < eps);
    QVERIFY(std::abs(tvd(1, Prev) - 1.0) < eps);
    QVERIFY(std::abs(mse(1, Next) - 1.0 / 16) < eps);  // last row: e3 vs 0

    const HeadSummary& uniform = r.headSummaries[2];
    for (double v : {uniform.first, uniform.separator, uniform.period, uniform.previous,
                     uniform.next, uniform.self})
      QVERIFY(std::abs(v - 0.25) < eps);
    for (int p = 0; p < 5; ++p) QVERIFY(std::abs(tvd(2, p) - 0.75) < eps);
    QVERIFY(std::abs(r.entropy[2].min - std::log(4.0)) < 1e-6);

    // A two-token separator set: uniform row vs (0, 1/2, 0, 1/2) is TVD 0.5, and against
    // the raw pattern (0, 1, 0, 1) each row's squared error is 20/16.
    s.roles.separator = {0, 1, 0, 1};
    AttentionStatistics two(1, 3, 4, options());
    two.addSequence(s.data.data(), 4, s.roles);
    const auto r2 = two.result();
    QVERIFY(std::abs(r2.guidanceDistance[2 * 5 + Separator] - 0.5) < eps);
    QVERIFY(std::abs(r2.guidanceMse[2 * 5 + Separator] - 20.0 / 16 / 4) < eps);

    // No period anywhere: the period distance is undefined (NaN), its MSE is plain sum A^2.
    s.roles.period.clear();
    AttentionStatistics none(1, 3, 4, options());
    none.addSequence(s.data.data(), 4, s.roles);
    const auto r3 = none.result();
    QVERIFY(std::isnan(r3.guidanceDistance[2 * 5 + Period]));
    QVERIFY(std::abs(r3.guidanceMse[2 * 5 + Period] - 0.25 / 4) < eps);
  }

  void zeroMassRowsAreSkippedAndCounted() {
    std::mt19937 rng(2);
    auto s = randomSequence(rng, 2, 2, 6, 6);
    for (int j = 0; j < 6; ++j) s.at(1, 0, 2, j) = 0.0f;  // row 2 of layer 1, head 0
    s.at(0, 1, 4, 0) = NAN;                               // not finite: skipped too
    s.at(1, 1, 5, 6 - 1) = 0.0f;
    AttentionStatistics stats(2, 2, 6, options(LogBase::Bits, false, 1));
    stats.addSequence(s.data.data(), 6, s.roles);
    const auto r = stats.result();
    QCOMPARE(r.skippedRows, std::int64_t(2));
    QCOMPARE(r.entropy[2].count, std::int64_t(5));
    QCOMPARE(r.entropy[1].count, std::int64_t(5));
    QCOMPARE(r.adjacentJsd[0].count, std::int64_t(5));
    QCOMPARE(r.adjacentJsd[1].count, std::int64_t(5));
    for (double v : r.pairwiseJsd) QVERIFY(std::isfinite(v));
  }

  // A head with no usable row at all (NaN attention, as from a diverged model): undefined
  // statistics, no colour, ordered last, never a fake "peaked" head with entropy 0.
  void headWithoutUsableRowsIsUndefined() {
    std::mt19937 rng(4);
    auto s = randomSequence(rng, 2, 2, 5, 5);
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < 5; ++j) s.at(0, 0, i, j) = NAN;
    }
    AttentionStatistics stats(2, 2, 5, options(LogBase::Bits, false, 1));
    stats.addSequence(s.data.data(), 5, s.roles);
    const auto r = stats.result();
    QCOMPARE(r.skippedRows, std::int64_t(5));
    QCOMPARE(r.entropy[0].count, std::int64_t(0));
    QVERIFY(std::isnan(r.entropy[0].median));
    QCOMPARE(r.entropyColours[0], ColourClass::None);
    QCOMPARE(r.headOrder[0], (std::vector<int>{1, 0}));
    QCOMPARE(r.adjacentJsd[0].count, std::int64_t(0));  // layer 1 head 0 against it
    QCOMPARE(r.jsdColours[0], ColourClass::None);
    QCOMPARE(r.entropy[1].count, std::int64_t(5));
    QCOMPARE(QString(colourName(ColourClass::None)), QString("none"));
  }

  void coloursFollowRealFormersThresholds() {
    QCOMPARE(entropyColour(4.5001), ColourClass::Red);
    QCOMPARE(entropyColour(4.5), ColourClass::Yellow);
    QCOMPARE(entropyColour(1.5), ColourClass::Yellow);
    QCOMPARE(entropyColour(1.4999), ColourClass::Blue);
    QCOMPARE(jsdColour(0.2499), ColourClass::Blue);
    QCOMPARE(jsdColour(0.25), ColourClass::Yellow);
    QCOMPARE(jsdColour(0.75), ColourClass::Yellow);
    QCOMPARE(jsdColour(0.7501), ColourClass::Red);
    QCOMPARE(QString(colourName(ColourClass::Blue)), QString("blue"));
    QCOMPARE(QString(colourName(ColourClass::Yellow)), QString("yellow"));
    QCOMPARE(QString(colourName(ColourClass::Red)), QString("red"));
    QCOMPARE(colourClass(NAN, kEntropyColourThresholds), ColourClass::None);
    // The JSD thresholds in nats are the bits thresholds times ln 2: 0.2 nats (0.29 bits) is
    // YELLOW, though against the bits thresholds 0.2 would be BLUE.
    const ColourThresholds nats = jsdColourThresholds(LogBase::Nats);
    QCOMPARE(colourClass(0.2, nats), ColourClass::Yellow);
    QCOMPARE(colourClass(0.2, jsdColourThresholds(LogBase::Bits)), ColourClass::Blue);
    QCOMPARE(colourClass(0.76 * kLn2, nats), ColourClass::Red);
    QCOMPARE(colourClass(0.24 * kLn2, nats), ColourClass::Blue);
  }

  void headsAreOrderedByMedianEntropy() {
    std::mt19937 rng(6);
    const int L = 2, H = 5, T = 16;
    AttentionStatistics stats(L, H, T, options());
    for (int b = 0; b < 3; ++b) {
      const auto s = randomSequence(rng, L, H, T, T);
      stats.addSequence(s.data.data(), T, s.roles);
    }
    const auto r = stats.result();
    for (int l = 0; l < L; ++l) {
      const auto& order = r.headOrder[std::size_t(l)];
      QCOMPARE(order.size(), std::size_t(H));
      for (int k = 1; k < H; ++k)
        QVERIFY(r.entropy[std::size_t(l * H + order[std::size_t(k - 1)])].median <=
                r.entropy[std::size_t(l * H + order[std::size_t(k)])].median);
      for (int h = 0; h < H; ++h)
        QCOMPARE(r.entropyColours[std::size_t(l * H + h)],
                 entropyColour(r.entropy[std::size_t(l * H + h)].median));
    }
  }

  void batchEqualsSequential() {
    std::mt19937 rng(12);
    const int L = 3, H = 4, T = 14, B = 11;
    std::vector<Sequence> seqs;
    std::vector<SequenceRoles> roles;
    std::vector<float> sequenceMajor, layerMajor(std::size_t(L) * B * H * T * T);
    for (int b = 0; b < B; ++b) {
      seqs.push_back(randomSequence(rng, L, H, T, 3 + b % 12));
      roles.push_back(seqs.back().roles);
      sequenceMajor.insert(sequenceMajor.end(), seqs.back().data.begin(), seqs.back().data.end());
    }
    const std::size_t block = std::size_t(H) * T * T;
    for (int l = 0; l < L; ++l)
      for (int b = 0; b < B; ++b)
        std::copy_n(seqs[std::size_t(b)].data.begin() + std::ptrdiff_t(l * block), block,
                    layerMajor.begin() + std::ptrdiff_t((std::size_t(l) * B + b) * block));
    AttentionStatistics one(L, H, T, options(LogBase::Bits, true, 5, 1));
    for (const auto& s : seqs) one.addSequence(s.data.data(), T, s.roles);
    const auto expected = one.result();
    for (int threads : {1, 3}) {
      AttentionStatistics batched(L, H, T, options(LogBase::Bits, true, 5, threads));
      batched.addBatch(sequenceMajor.data(), B, T, roles, false);
      compareResults(batched.result(), expected);
      AttentionStatistics byLayer(L, H, T, options(LogBase::Bits, true, 5, threads));
      byLayer.addBatch(layerMajor.data(), B, T, roles, true);
      compareResults(byLayer.result(), expected);
      // Split unevenly across calls.
      AttentionStatistics split(L, H, T, options(LogBase::Bits, true, 5, threads));
      split.addBatch(sequenceMajor.data(), 4, T, std::span(roles).first(4), false);
      split.addBatch(sequenceMajor.data() + 4 * std::size_t(L) * block, B - 4, T,
                     std::span(roles).subspan(4), false);
      compareResults(split.result(), expected);
    }
  }

  void mergeEqualsAddingEverythingToOne() {
    std::mt19937 rng(13);
    const int L = 2, H = 3, T = 9;
    std::vector<Sequence> seqs;
    for (int b = 0; b < 6; ++b) seqs.push_back(randomSequence(rng, L, H, T, 4 + b));
    AttentionStatistics all(L, H, T, options(LogBase::Nats, false, 100));
    AttentionStatistics a(L, H, T, options(LogBase::Nats, false, 100));
    AttentionStatistics b(L, H, T, options(LogBase::Nats, false, 100));
    for (int k = 0; k < 6; ++k) {
      all.addSequence(seqs[std::size_t(k)].data.data(), T, seqs[std::size_t(k)].roles);
      (k < 2 ? a : b).addSequence(seqs[std::size_t(k)].data.data(), T, seqs[std::size_t(k)].roles);
    }
    a.merge(b);
    const auto x = all.result(), y = a.result();
    QCOMPARE(y.sequences, x.sequences);
    QCOMPARE(y.rows, x.rows);
    QCOMPARE(y.pairwiseSequencesUsed, x.pairwiseSequencesUsed);
    for (std::size_t k = 0; k < x.entropy.size(); ++k) {
      QCOMPARE(y.entropy[k].histogramCounts, x.entropy[k].histogramCounts);
      QCOMPARE(y.entropy[k].median, x.entropy[k].median);
      QVERIFY(std::abs(y.entropy[k].mean - x.entropy[k].mean) < 1e-12);
    }
    for (std::size_t k = 0; k < x.adjacentJsd.size(); ++k) {
      QCOMPARE(y.adjacentJsd[k].histogramCounts, x.adjacentJsd[k].histogramCounts);
      QVERIFY(std::abs(y.adjacentJsd[k].mean - x.adjacentJsd[k].mean) < 1e-12);
    }
    for (std::size_t k = 0; k < x.pairwiseJsd.size(); ++k)
      QVERIFY(std::abs(y.pairwiseJsd[k] - x.pairwiseJsd[k]) < 1e-12);
    for (std::size_t k = 0; k < x.guidanceDistance.size(); ++k) {
      QVERIFY(std::abs(y.guidanceDistance[k] - x.guidanceDistance[k]) < 1e-12);
      QVERIFY(std::abs(y.guidanceMse[k] - x.guidanceMse[k]) < 1e-12);
    }
    for (std::size_t k = 0; k < x.headSummaries.size(); ++k)
      QVERIFY(std::abs(y.headSummaries[k].previous - x.headSummaries[k].previous) < 1e-12);
    AttentionStatistics otherShape(L, H + 1, T, options(LogBase::Nats));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, a.merge(otherShape));
    AttentionStatistics otherBase(L, H, T, options(LogBase::Bits));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, a.merge(otherBase));
  }

  void memoryDoesNotGrowWithSequences() {
    std::mt19937 rng(14);
    const int L = 2, H = 2, T = 8;
    const auto s = randomSequence(rng, L, H, T, 6);
    AttentionStatistics stats(L, H, T, options(LogBase::Bits, false, 4));
    for (int k = 0; k < 10; ++k) stats.addSequence(s.data.data(), T, s.roles);
    const std::size_t after10 = stats.memoryBytes();
    std::vector<float> batch;
    for (int k = 0; k < 50; ++k) batch.insert(batch.end(), s.data.begin(), s.data.end());
    const std::vector<SequenceRoles> roles(50, s.roles);
    for (int k = 0; k < 990; ++k) {
      if (k < 19)
        stats.addBatch(batch.data(), 50, T, roles, false);
      else
        stats.addSequence(s.data.data(), T, s.roles);
    }
    QCOMPARE(stats.memoryBytes(), after10);
    QCOMPARE(stats.sequences(), std::int64_t(10 + 19 * 50 + 971));
    QCOMPARE(stats.result().entropy[0].count, std::int64_t(6) * stats.sequences());
  }

  void badArgumentsThrow() {
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AttentionStatistics(0, 1, 4));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AttentionStatistics(1, 1, 0));
    AttentionStatistics stats(1, 1, 4);
    std::vector<float> data(64, 0.1f);
    SequenceRoles tooLong;
    tooLong.length = 5;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, stats.addSequence(data.data(), 8, tooLong));
    SequenceRoles beyondStride;
    beyondStride.length = 4;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             stats.addSequence(data.data(), 3, beyondStride));
    SequenceRoles shortFlags;
    shortFlags.length = 4;
    shortFlags.separator = {0, 1};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, stats.addSequence(data.data(), 4, shortFlags));
    SequenceRoles ok;
    ok.length = 4;
    std::vector<SequenceRoles> one(1, ok);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, stats.addBatch(data.data(), 2, 4, one, false));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, stats.addSequence(nullptr, 4, ok));
    QCOMPARE(stats.sequences(), std::int64_t(0));  // nothing was half-added
    stats.addSequence(data.data(), 4, ok);
    QCOMPARE(stats.sequences(), std::int64_t(1));
  }
};

QTEST_APPLESS_MAIN(TestAttentionStatistics)
#include "test_attention_statistics.moc"
