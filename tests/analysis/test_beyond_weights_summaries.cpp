// The corpus summaries beyond the weights on cases worked out by hand: rollout of uniform and
// of self-only attention (Abnar & Zuidema's formula done on paper), Pearson r against the
// textbook sums, the lens's means and half-accuracy row, and the masking rule (splitmix64's
// published first output, 15% rounded, at least one, never a special token). The real
// checkpoint is checked by tests/app/test_cli_analyze_beyond.cpp against numpy.
#include "analysis/attention/beyond_weights_summaries.h"

#include <QtTest>

#include <cmath>
#include <set>
#include <vector>

using namespace attnlab::analysis;

namespace {

/// [layers][1 head][T][T], rows uniform over the first `valid` keys; padding rows/keys hold 7.
std::vector<float> uniformStack(int layers, int T, int valid) {
  std::vector<float> a(static_cast<std::size_t>(layers * T * T), 7.0f);
  for (int l = 0; l < layers; ++l)
    for (int i = 0; i < valid; ++i)
      for (int j = 0; j < valid; ++j)
        a[static_cast<std::size_t>((l * T + i) * T + j)] = 1.0f / valid;
  return a;
}

/// Pearson r from the textbook sums (not Welford's updates the accumulator uses).
double textbookPearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    sx += x[k];
    sy += y[k];
    sxx += x[k] * x[k];
    syy += y[k] * y[k];
    sxy += x[k] * y[k];
  }
  return (n * sxy - sx * sy) / std::sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
}

}  // namespace

class TestBeyondWeightsSummaries : public QObject {
  Q_OBJECT

 private slots:
  // Uniform attention over 3 tokens: A~ = (U + I) / 2 has 2/3 on the diagonal and 1/6 off it;
  // R_1 = A~ A~ has 1/2 on the diagonal and 1/4 off it. Spread of R_0: rows 1/2, 1/3, 1/2
  // (mean 4/9); of R_1: rows 3/4, 1/2, 3/4 (mean 2/3). A padded position changes nothing.
  void rolloutOfUniformAttentionByHand() {
    const auto a = uniformStack(2, 4, 3);
    RolloutAccumulator acc(2);
    acc.addSequence({a.data(), 2, 1, 4}, 3);
    acc.addSequence({a.data(), 2, 1, 4}, 3);  // the same again: the means stay
    const auto r = acc.result();
    QCOMPARE(r.rows, std::int64_t{6});
    QVERIFY(std::abs(r.diagonal[0] - 2.0 / 3) < 1e-6);
    QVERIFY(std::abs(r.diagonal[1] - 0.5) < 1e-6);
    QVERIFY(std::abs(r.spread[0] - 4.0 / 9) < 1e-6);
    QVERIFY(std::abs(r.spread[1] - 2.0 / 3) < 1e-6);
    const double h0 = -(2.0 / 3 * std::log(2.0 / 3) + 2 * (1.0 / 6) * std::log(1.0 / 6));
    const double h1 = -(0.5 * std::log(0.5) + 2 * 0.25 * std::log(0.25));
    QVERIFY(std::abs(r.entropy[0] - h0) < 1e-6);
    QVERIFY(std::abs(r.entropy[1] - h1) < 1e-6);
  }

  // Each token attends only to itself: rollout stays the identity, no spread, no entropy.
  void rolloutOfSelfAttentionStaysOnTheDiagonal() {
    const int T = 5;
    std::vector<float> a(static_cast<std::size_t>(3 * 2 * T * T), 0.0f);
    for (int m = 0; m < 3 * 2; ++m)
      for (int i = 0; i < T; ++i) a[static_cast<std::size_t>((m * T + i) * T + i)] = 1.0f;
    RolloutAccumulator acc(3);
    acc.addSequence({a.data(), 3, 2, T}, T);
    const auto r = acc.result();
    for (int l = 0; l < 3; ++l) {
      QCOMPARE(r.diagonal[l], 1.0);
      QCOMPARE(r.spread[l], 0.0);
      QCOMPARE(r.entropy[l], 0.0);
    }
  }

  void pearsonMatchesTheTextbookSums() {
    const std::vector<double> x = {0.1, 0.5, 0.2, 0.9, 0.3, 0.05};
    const std::vector<double> y = {1.0, 2.5, 0.7, 3.1, 1.9, 0.2};
    PearsonAccumulator p;
    for (std::size_t k = 0; k < x.size(); ++k) p.add(x[k], y[k]);
    QVERIFY(std::abs(p.correlation() - textbookPearson(x, y)) < 1e-12);
    PearsonAccumulator constant;
    constant.add(1, 2);
    constant.add(1, 3);
    QVERIFY(std::isnan(constant.correlation()));
  }

  // Norms proportional to the weights (every ||f|| equal) correlate perfectly; a key whose
  // vector is small where its weight is large (the case the norms exist for) breaks it.
  void normsTrackTheWeightsOnlyWhenTheVectorsAreEqual() {
    const int T = 3;
    const std::vector<float> w = {0.7f, 0.2f, 0.1f, 0.3f, 0.3f, 0.4f, 0.1f, 0.1f, 0.8f};
    const std::vector<float> equalF = {2, 2, 2};
    const std::vector<float> skewedF = {0.1f, 3, 3};
    for (const auto* f : {&equalF, &skewedF}) {
      std::vector<float> head(9), layer(9);
      std::vector<double> x, y;
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) {
          head[i * T + j] = w[i * T + j] * (*f)[j];
          layer[i * T + j] = head[i * T + j];  // one head: the layer's sum is that head
          x.push_back(w[i * T + j]);
          y.push_back(head[i * T + j]);
        }
      NormAccumulator acc(1, 1);
      acc.addLayer(0, {w.data(), head.data(), f->data(), layer.data(), T, T});
      const auto s = acc.result();
      QCOMPARE(s.cells, std::int64_t{9});
      QVERIFY(std::abs(s.headCorrelation[0] - textbookPearson(x, y)) < 1e-9);
      QVERIFY(std::abs(s.layerCorrelation[0] - textbookPearson(x, y)) < 1e-9);
      QVERIFY(std::abs(s.meanValueNorm[0] - ((*f)[0] + (*f)[1] + (*f)[2]) / 3.0) < 1e-6);
      if (f == &equalF) QVERIFY(std::abs(s.headCorrelation[0] - 1.0) < 1e-9);
      if (f == &skewedF)
        QVERIFY(std::abs(s.headCorrelation[0] - 0.6036171) < 1e-6);  // numpy corrcoef
    }
  }

  // Two rows (layer 0, output layer 1), three positions in two batches.
  void lensMeansAndTheHalfAccuracyRow() {
    LensAccumulator acc(2, false, 42);
    acc.add(std::vector<std::int64_t>{3, 0, 0, 0}, std::vector<double>{1, 2, 0.5, 0.25},
            std::vector<double>{0.3, 0.1, 0, 0}, 2);
    acc.add(std::vector<std::int64_t>{5, 1}, std::vector<double>{3, 0.75},
            std::vector<double>{0.2, 0}, 1);
    const auto s = acc.result();
    QCOMPARE(s.positions, std::int64_t{3});
    QCOMPARE(s.rows.size(), std::size_t{2});
    QVERIFY(std::abs(s.rows[0].accuracy - 1.0 / 3) < 1e-12);
    QVERIFY(std::abs(s.rows[0].meanRank - 8.0 / 3) < 1e-12);
    QVERIFY(std::abs(s.rows[0].meanEntropy - 2.0) < 1e-12);
    QVERIFY(std::abs(s.rows[0].meanKlToOutput - 0.2) < 1e-12);
    QVERIFY(std::abs(s.rows[1].accuracy - 2.0 / 3) < 1e-12);
    QCOMPARE(s.halfAccuracyRow, 0);  // 1/3 >= half of 2/3

    std::vector<LensSummaryRow> rows(3);
    rows[0].accuracy = 0.1;
    rows[1].accuracy = 0.3;
    rows[2].accuracy = 0.5;
    QCOMPARE(halfAccuracyRow(rows), 1);
    rows[2].accuracy = 0;
    QCOMPARE(halfAccuracyRow(rows), -1);  // nothing to reach
  }

  // splitmix64's first output from state 0 is 0xe220a8397b1dcdaf (Vigna's reference code), so
  // lensMaskKey(0, -1, 0) = splitmix64(0xe220a8397b1dcdaf); that and the other keys as
  // docs/analysis.md composes them, computed in python.
  void maskingKeysFollowTheDocumentedFormula() {
    QCOMPARE(lensMaskKey(0, -1, 0), std::uint64_t{0xa706dd2f4d197e6fULL});
    QCOMPARE(lensMaskKey(42, 0, 5), std::uint64_t{0xb1a00a00ea46b69cULL});
    QCOMPARE(lensMaskKey(7, 3, 0), std::uint64_t{0xba42f571ab5a9e30ULL});
  }

  void maskingChoosesFifteenPercentOfRealNonSpecialTokens() {
    const std::vector<std::int64_t> special = {0, 1, 2, 3, 4};
    std::vector<std::int64_t> ids = {1};  // <s>, 40 words, </s>, 3 <pad>
    for (int k = 0; k < 40; ++k) ids.push_back(10 + k);
    ids.insert(ids.end(), {2, 0, 0, 0});
    const auto chosen = lensMaskPositions(ids.data(), 42, special, 42, 0);
    QCOMPARE(chosen.size(), std::size_t{6});  // round(0.15 * 40)
    for (const int p : chosen) QVERIFY(p >= 1 && p <= 40);
    QVERIFY(std::is_sorted(chosen.begin(), chosen.end()));
    QCOMPARE(lensMaskPositions(ids.data(), 42, special, 42, 0), chosen);  // deterministic
    QVERIFY(lensMaskPositions(ids.data(), 42, special, 42, 1) != chosen);
    QVERIFY(lensMaskPositions(ids.data(), 42, special, 43, 0) != chosen);
    const std::vector<std::int64_t> shortOne = {1, 17, 2};
    QCOMPARE(lensMaskPositions(shortOne.data(), 3, special, 42, 9), std::vector<int>{1});
    const std::vector<std::int64_t> onlySpecial = {1, 2};
    QVERIFY(lensMaskPositions(onlySpecial.data(), 2, special, 42, 0).empty());
  }
};

QTEST_GUILESS_MAIN(TestBeyondWeightsSummaries)
#include "test_beyond_weights_summaries.moc"
