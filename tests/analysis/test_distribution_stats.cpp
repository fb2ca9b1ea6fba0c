// Entropy and JSD against values computed by hand or by the formula written out here.
#include "analysis/attention/distribution_stats.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <vector>

using namespace attnlab::analysis;

namespace {

std::vector<float> randomDistribution(std::mt19937& rng, int n) {
  std::gamma_distribution<float> g(0.5f, 1.0f);
  std::vector<float> p(n);
  float sum = 0;
  for (auto& v : p) sum += (v = g(rng));
  for (auto& v : p) v /= sum;
  return p;
}

// The textbook formula, written independently of the code under test:
// JSD = H(m) - (H(p) + H(q)) / 2, with base-2 logarithms.
double referenceJsdBits(const std::vector<float>& p, const std::vector<float>& q) {
  auto h = [](const std::vector<double>& d) {
    double s = 0;
    for (double v : d)
      if (v > 0) s -= v * std::log2(v);
    return s;
  };
  std::vector<double> m(p.size()), pd(p.begin(), p.end()), qd(q.begin(), q.end());
  for (size_t i = 0; i < p.size(); ++i) m[i] = 0.5 * (pd[i] + qd[i]);
  return h(m) - 0.5 * (h(pd) + h(qd));
}

}  // namespace

class TestDistributionStats : public QObject {
  Q_OBJECT
 private slots:
  void uniformRowHasEntropyLnT() {
    for (int t : {2, 7, 128, 512}) {
      std::vector<float> p(t, 1.0f / t);
      QVERIFY(std::abs(entropy(p) - std::log(double(t))) < 1e-5);
      QVERIFY(std::abs(entropy(p, LogBase::Bits) - std::log2(double(t))) < 1e-5);
    }
  }
  void oneHotRowHasZeroEntropy() {
    std::vector<float> p(10, 0.0f);
    p[3] = 1.0f;
    QCOMPARE(entropy(p), 0.0);
  }
  void handComputedEntropy() {
    // H(1/2, 1/4, 1/4) = 1.5 bits exactly.
    std::vector<float> p = {0.5f, 0.25f, 0.25f};
    QVERIFY(std::abs(entropy(p, LogBase::Bits) - 1.5) < 1e-9);
  }
  void identicalDistributionsHaveZeroJsd() {
    std::mt19937 rng(1);
    auto p = randomDistribution(rng, 64);
    QVERIFY(jensenShannon(p, p) < 1e-12);
  }
  void disjointDistributionsHaveOneBit() {
    std::vector<float> p = {0.5f, 0.5f, 0.0f, 0.0f};
    std::vector<float> q = {0.0f, 0.0f, 0.3f, 0.7f};
    QVERIFY(std::abs(jensenShannon(p, q) - 1.0) < 1e-9);
    QVERIFY(std::abs(jensenShannon(p, q, LogBase::Nats) - std::log(2.0)) < 1e-9);
  }
  void randomDistributionsMatchTheFormula() {
    std::mt19937 rng(42);
    for (int trial = 0; trial < 50; ++trial) {
      auto p = randomDistribution(rng, 1 + trial * 7);
      auto q = randomDistribution(rng, 1 + trial * 7);
      const double ours = jensenShannon(p, q);
      const double ref = referenceJsdBits(p, q);
      QVERIFY2(std::abs(ours - ref) < 1e-6, qPrintable(QString("%1 vs %2").arg(ours).arg(ref)));
      QVERIFY(ours >= 0.0 && ours <= 1.0 + 1e-9);
      QVERIFY(std::abs(jensenShannon(p, q) - jensenShannon(q, p)) < 1e-12);  // symmetric
    }
  }
  void lengthMismatchThrows() {
    std::vector<float> p = {1.0f}, q = {0.5f, 0.5f};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, jensenShannon(p, q));
  }
};

QTEST_APPLESS_MAIN(TestDistributionStats)
#include "test_distribution_stats.moc"
