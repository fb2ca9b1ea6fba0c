// The objectives against values computed independently in this file: pattern matrices and
// schedule values written out by hand, the guidance loss, its gradient and the KL by
// explicit loops in double, mask penalty and masking proportion counted by hand.
#include "core/config/run_config.h"
#include "core/errors/error.h"
#include "core/objectives/asa_objective.h"
#include "core/objectives/attention_guidance.h"

#include <torch/torch.h>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

using namespace attnlab::core;

namespace {

using Matrix = std::vector<std::vector<double>>;
using Ids = std::vector<std::vector<std::int64_t>>;

// Two sequences of T = 5: the first is all real, the second has 4 real tokens and one pad.
// The pad position holds a [Period] id on purpose, to show padding is never matched.
// Ids: 1 = <s>, 2 = </s> (delimiters), 9 = "." (period), 7 = an ordinary word.
const Ids kIds = {{1, 9, 7, 9, 2}, {1, 7, 9, 2, 9}};
const Ids kMask = {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 0}};

GuidanceTokens tokens() {
  return GuidanceTokens{{1, 2}, {9}};
}

torch::Tensor idsTensor(const Ids& ids) {
  std::vector<torch::Tensor> rows;
  for (const auto& r : ids) rows.push_back(torch::tensor(r, torch::kLong));
  return torch::stack(rows);
}

torch::Tensor matrixTensor(const Matrix& m) {
  std::vector<torch::Tensor> rows;
  for (const auto& r : m) rows.push_back(torch::tensor(r, torch::kFloat64));
  return torch::stack(rows);
}

torch::Tensor batchTensor(const Matrix& first, const Matrix& second) {
  return torch::stack({matrixTensor(first), matrixTensor(second)});
}

QString describe(const torch::Tensor& t) {
  std::ostringstream os;
  os << t;
  return QString::fromStdString(os.str());
}

void verifyClose(const torch::Tensor& actual, const torch::Tensor& expected, double tol) {
  const auto a = actual.detach().to(torch::kFloat64);
  const auto e = expected.detach().to(torch::kFloat64);
  QCOMPARE(a.sizes().vec(), e.sizes().vec());
  const double err = (a - e).abs().max().item<double>();
  QVERIFY2(err <= tol, qPrintable(QString("max abs error %1\nactual:\n%2\nexpected:\n%3")
                                      .arg(err)
                                      .arg(describe(a))
                                      .arg(describe(e))));
}

// --- an independent pattern builder (loops in double), checked itself against the
// hand-written matrices below before the loss tests rely on it ---------------------------
std::vector<Matrix> referencePatterns(GuidancePattern pattern, const Ids& ids, const Ids& mask,
                                      const GuidanceTokens& tok, bool uniformEdges) {
  std::vector<Matrix> out;
  for (std::size_t b = 0; b < ids.size(); ++b) {
    const std::size_t T = ids[b].size();
    Matrix m(T, std::vector<double>(T, 0.0));
    std::vector<std::size_t> realPos;
    for (std::size_t j = 0; j < T; ++j)
      if (mask[b][j]) realPos.push_back(j);
    auto uniformRow = [&](std::size_t i) {
      for (auto j : realPos) m[i][j] = 1.0 / double(realPos.size());
    };
    for (std::size_t i = 0; i < T; ++i) {
      if (!mask[b][i]) continue;
      if (pattern == GuidancePattern::Next) {
        if (i + 1 < T && mask[b][i + 1])
          m[i][i + 1] = 1.0;
        else if (uniformEdges)
          uniformRow(i);
      } else if (pattern == GuidancePattern::Prev) {
        if (i >= 1 && mask[b][i - 1])
          m[i][i - 1] = 1.0;
        else if (uniformEdges)
          uniformRow(i);
      } else if (pattern == GuidancePattern::First) {
        if (mask[b][0]) m[i][0] = 1.0;
      } else {
        const auto& want = pattern == GuidancePattern::Delim ? tok.delimiterIds : tok.periodIds;
        std::vector<std::size_t> hits;
        for (auto j : realPos)
          for (auto w : want)
            if (ids[b][j] == w) hits.push_back(j);
        for (auto j : hits) m[i][j] = 1.0 / double(hits.size());
      }
    }
    out.push_back(m);
  }
  return out;
}

// The guidance loss by explicit loops, in double. Returns {total, per pattern}.
std::pair<double, std::map<GuidancePattern, double>> referenceLoss(
    const std::vector<torch::Tensor>& probs, const std::vector<std::vector<GuidancePattern>>& hp,
    const Ids& ids, const Ids& mask, const GuidanceTokens& tok, bool uniformEdges, bool frobenius) {
  const std::size_t B = ids.size(), T = ids[0].size();
  double realCells = 0;
  for (std::size_t b = 0; b < B; ++b) {
    double n = 0;
    for (auto v : mask[b]) n += v ? 1 : 0;
    realCells += n * n;
  }
  double total = 0;
  std::map<GuidancePattern, double> per;
  for (std::size_t l = 0; l < hp.size(); ++l) {
    if (hp[l].empty()) continue;
    const auto a = probs[l].detach().to(torch::kFloat64).contiguous();
    const auto acc = a.accessor<double, 4>();
    std::map<GuidancePattern, std::pair<double, int>> groups;  // sum of squares, heads
    for (std::size_t h = 0; h < hp[l].size(); ++h) {
      const auto pattern = hp[l][h];
      if (pattern == GuidancePattern::None) continue;
      const auto p = referencePatterns(pattern, ids, mask, tok, uniformEdges);
      double sq = 0;
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < T; ++i)
          for (std::size_t j = 0; j < T; ++j) {
            if (!mask[b][i] || !mask[b][j]) continue;
            const double d = acc[long(b)][long(h)][long(i)][long(j)] - p[b][i][j];
            sq += d * d;
          }
      if (frobenius) {
        total += sq / double(B);
        per[pattern] += sq / double(B);
      } else {
        groups[pattern].first += sq;
        groups[pattern].second += 1;
      }
    }
    for (const auto& [pattern, g] : groups) {
      const double v = g.first / (double(g.second) * realCells);
      total += v;
      per[pattern] += v;
    }
  }
  return {total, per};
}

// Random attention rows (softmax of noise) over all T keys, padding included, so the
// padded cells hold values the loss must ignore.
torch::Tensor randomAttention(int64_t B, int64_t H, int64_t T) {
  return torch::softmax(torch::randn({B, H, T, T}) * 2.0, -1);
}

std::vector<std::vector<GuidancePattern>> mixedHeads() {
  using G = GuidancePattern;
  return {{G::Next, G::Prev, G::First, G::Delim}, {}, {G::First, G::Period, G::None, G::First}};
}

std::vector<torch::Tensor> mixedProbabilities() {
  return {randomAttention(2, 4, 5), torch::Tensor(), randomAttention(2, 4, 5)};
}

double softmaxAt(const std::vector<double>& x, std::size_t k) {
  double mx = x[0];
  for (double v : x) mx = std::max(mx, v);
  double z = 0;
  for (double v : x) z += std::exp(v - mx);
  return std::exp(x[k] - mx) / z;
}

// sum_rows sum_v p (log p - log q) / N, with p and q the softmaxes of each row, in double.
double referenceKl(const torch::Tensor& pLogits, const torch::Tensor& qLogits) {
  const auto p = pLogits.detach().to(torch::kFloat64).contiguous();
  const auto q = qLogits.detach().to(torch::kFloat64).contiguous();
  const auto N = p.size(0), V = p.size(1);
  double sum = 0;
  for (int64_t n = 0; n < N; ++n) {
    std::vector<double> pr(V), qr(V);
    for (int64_t v = 0; v < V; ++v) {
      pr[v] = p[n][v].item<double>();
      qr[v] = q[n][v].item<double>();
    }
    for (int64_t v = 0; v < V; ++v) {
      const double pv = softmaxAt(pr, v), qv = softmaxAt(qr, v);
      sum += pv * (std::log(pv) - std::log(qv));
    }
  }
  return sum / double(N);
}

}  // namespace

class TestObjectives : public QObject {
  Q_OBJECT

  void checkPattern(GuidancePattern pattern, bool uniform, const Matrix& first,
                    const Matrix& second) {
    const auto expected = batchTensor(first, second);
    const auto actual =
        guidancePattern(pattern, idsTensor(kIds), idsTensor(kMask).ne(0), tokens(), uniform);
    QCOMPARE(actual.scalar_type(), torch::kFloat32);
    verifyClose(actual, expected, 1e-7);
    // The loops used by the loss tests agree with the same hand-written matrices.
    const auto ref = referencePatterns(pattern, kIds, kMask, tokens(), uniform);
    verifyClose(batchTensor(ref[0], ref[1]), expected, 1e-12);
  }

 private slots:
  void initTestCase() { torch::manual_seed(11); }

  // --- names, heads, layers ---------------------------------------------------------------
  void patternNamesRoundTrip() {
    for (auto p : {GuidancePattern::None, GuidancePattern::Next, GuidancePattern::Prev,
                   GuidancePattern::First, GuidancePattern::Delim, GuidancePattern::Period}) {
      QVERIFY(parseGuidancePattern(guidancePatternName(p)) == p);
    }
    QCOMPARE(QString(guidancePatternName(GuidancePattern::Next)), QString("next"));
    QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, parseGuidancePattern("Next"));
    QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, parseGuidancePattern("same"));
  }

  void headsFromFraction() {
    using G = GuidancePattern;
    GuidanceConfig c;
    c.headFraction = 0.5;
    const std::vector<G> expected = {G::Next, G::Prev, G::First, G::First, G::First, G::First,
                                     G::None, G::None, G::None,  G::None,  G::None,  G::None};
    QVERIFY(assignGuidanceHeads(c, 12) == expected);
    c.headFraction = 1.0 / 12.0;  // k = 1: only [Next]
    QVERIFY(assignGuidanceHeads(c, 12) ==
            std::vector<G>({G::Next, G::None, G::None, G::None, G::None, G::None, G::None, G::None,
                            G::None, G::None, G::None, G::None}));
    c.headFraction = 0.5;  // k = round(2) = 2 of 4: [Next, Prev]
    QVERIFY(assignGuidanceHeads(c, 4) == std::vector<G>({G::Next, G::Prev, G::None, G::None}));
    c.headFraction = 0.0;
    QVERIFY(assignGuidanceHeads(c, 4) == std::vector<G>(4, G::None));
    c.headFraction = 1.0;
    QVERIFY(assignGuidanceHeads(c, 3) == std::vector<G>({G::Next, G::Prev, G::First}));
  }

  void headsFromExplicitList() {
    using G = GuidancePattern;
    GuidanceConfig c;
    c.headFraction = 0.5;  // ignored: the list wins
    c.heads = {GuidancePattern::Period, GuidancePattern::None, GuidancePattern::Delim,
               GuidancePattern::First,  GuidancePattern::Next, GuidancePattern::Prev};
    QVERIFY(assignGuidanceHeads(c, 6) ==
            std::vector<G>({G::Period, G::None, G::Delim, G::First, G::Next, G::Prev}));
    QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, assignGuidanceHeads(c, 4));
  }

  void guidedLayersParse() {
    GuidanceConfig c;
    QVERIFY(guidedLayers(c, 3) == std::vector<bool>({true, true, true}));
    c.layers = "0,2";
    QVERIFY(guidedLayers(c, 4) == std::vector<bool>({true, false, true, false}));
    c.layers = "3";
    QVERIFY(guidedLayers(c, 4) == std::vector<bool>({false, false, false, true}));
    c.layers = "1,1";
    QVERIFY(guidedLayers(c, 2) == std::vector<bool>({false, true}));
    for (const char* bad : {"4", "-1", "a", "", "1,,2", "1,", "0;1", "1x"}) {
      c.layers = bad;
      QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, guidedLayers(c, 4));
    }
  }

  // --- pattern matrices, by hand ----------------------------------------------------------
  void nextUniformEdges() {
    checkPattern(GuidancePattern::Next, true,
                 {{0, 1, 0, 0, 0},
                  {0, 0, 1, 0, 0},
                  {0, 0, 0, 1, 0},
                  {0, 0, 0, 0, 1},
                  {0.2, 0.2, 0.2, 0.2, 0.2}},
                 {{0, 1, 0, 0, 0},
                  {0, 0, 1, 0, 0},
                  {0, 0, 0, 1, 0},
                  {0.25, 0.25, 0.25, 0.25, 0},
                  {0, 0, 0, 0, 0}});
  }
  void nextZeroEdges() {
    checkPattern(
        GuidancePattern::Next, false,
        {{0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 1, 0}, {0, 0, 0, 0, 1}, {0, 0, 0, 0, 0}},
        {{0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 1, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}});
  }
  void prevUniformEdges() {
    checkPattern(GuidancePattern::Prev, true,
                 {{0.2, 0.2, 0.2, 0.2, 0.2},
                  {1, 0, 0, 0, 0},
                  {0, 1, 0, 0, 0},
                  {0, 0, 1, 0, 0},
                  {0, 0, 0, 1, 0}},
                 {{0.25, 0.25, 0.25, 0.25, 0},
                  {1, 0, 0, 0, 0},
                  {0, 1, 0, 0, 0},
                  {0, 0, 1, 0, 0},
                  {0, 0, 0, 0, 0}});
  }
  void prevZeroEdges() {
    checkPattern(
        GuidancePattern::Prev, false,
        {{0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 1, 0}},
        {{0, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 0, 0}});
  }
  void firstBothModes() {
    const Matrix full = {
        {1, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {1, 0, 0, 0, 0}};
    const Matrix padded = {
        {1, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 0, 0, 0, 0}};
    checkPattern(GuidancePattern::First, true, full, padded);
    checkPattern(GuidancePattern::First, false, full, padded);
  }
  void delimRows() {
    // <s> at 0 and </s> at 4 (first), at 0 and 3 (second): half each, for every real row.
    const Matrix first(5, {0.5, 0, 0, 0, 0.5});
    const Matrix second = {{0.5, 0, 0, 0.5, 0},
                           {0.5, 0, 0, 0.5, 0},
                           {0.5, 0, 0, 0.5, 0},
                           {0.5, 0, 0, 0.5, 0},
                           {0, 0, 0, 0, 0}};
    checkPattern(GuidancePattern::Delim, true, first, second);
    checkPattern(GuidancePattern::Delim, false, first, second);
  }
  void periodRows() {
    // "." at 1 and 3 (first); at 2 only in the second: its pad position 4 holds id 9 too.
    const Matrix first(5, {0, 0.5, 0, 0.5, 0});
    const Matrix second = {
        {0, 0, 1, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 0, 0}};
    checkPattern(GuidancePattern::Period, true, first, second);
  }
  void tokenPatternWithoutTokenIsZero() {
    const auto p = guidancePattern(GuidancePattern::Period, idsTensor(kIds), idsTensor(kMask),
                                   GuidanceTokens{{1, 2}, {42}}, true);
    QCOMPARE(p.sizes().vec(), std::vector<int64_t>({2, 5, 5}));
    QCOMPARE(p.abs().sum().item<double>(), 0.0);
  }
  void fourTokenSequenceWithoutPadding() {
    // A 4x4 case on its own, the mask given as integers rather than bool.
    const auto ids = idsTensor({{1, 7, 7, 2}});
    const auto mask = idsTensor({{1, 1, 1, 1}});
    verifyClose(guidancePattern(GuidancePattern::Next, ids, mask, tokens(), true)[0],
                matrixTensor({{0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {0.25, 0.25, 0.25, 0.25}}),
                1e-7);
    verifyClose(guidancePattern(GuidancePattern::Prev, ids, mask, tokens(), false)[0],
                matrixTensor({{0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}), 1e-7);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             guidancePattern(GuidancePattern::None, ids, mask, tokens(), true));
  }

  // --- the loss ---------------------------------------------------------------------------
  void lossMatchesLoops_data() {
    QTest::addColumn<bool>("frobenius");
    QTest::addColumn<bool>("uniform");
    QTest::newRow("frobenius, uniform edges (paper)") << true << true;
    QTest::newRow("frobenius, zero edges") << true << false;
    QTest::newRow("mean, zero edges (code)") << false << false;
    QTest::newRow("mean, uniform edges") << false << true;
  }
  void lossMatchesLoops() {
    QFETCH(bool, frobenius);
    QFETCH(bool, uniform);
    const auto probs = mixedProbabilities();
    const auto heads = mixedHeads();
    const auto loss = guidanceLoss(probs, heads, idsTensor(kIds), idsTensor(kMask).ne(0), tokens(),
                                   uniform, frobenius);
    const auto [total, per] =
        referenceLoss(probs, heads, kIds, kMask, tokens(), uniform, frobenius);
    QCOMPARE(loss.total.dim(), 0);
    QVERIFY2(std::abs(loss.total.item<double>() - total) < 1e-5 * std::max(1.0, total),
             qPrintable(QString("%1 vs %2").arg(loss.total.item<double>()).arg(total)));
    QCOMPARE(loss.perPattern.size(), per.size());
    double sumParts = 0;
    for (const auto& [pattern, value] : per) {
      QVERIFY(loss.perPattern.count(pattern) == 1);
      const auto& part = loss.perPattern.at(pattern);
      QCOMPARE(part.dim(), 0);
      QVERIFY(std::abs(part.item<double>() - value) < 1e-5 * std::max(1.0, value));
      sumParts += part.item<double>();
    }
    QVERIFY(std::abs(sumParts - total) < 1e-5 * std::max(1.0, total));
  }

  void frobeniusByHand() {
    // One layer, one head, one 2-token sequence, [Next] with uniform edges:
    //   target [[0, 1], [0.5, 0.5]], A [[0.7, 0.3], [0.1, 0.9]]
    //   squares 0.49 + 0.49 + 0.16 + 0.16 = 1.30 (frobenius; B = 1)
    //   mean over the 4 real cells: 0.325
    const auto a = torch::tensor({0.7, 0.3, 0.1, 0.9}).view({1, 1, 2, 2});
    const auto ids = idsTensor({{1, 2}});
    const auto mask = idsTensor({{1, 1}});
    const std::vector<std::vector<GuidancePattern>> heads = {{GuidancePattern::Next}};
    QVERIFY(
        std::abs(guidanceLoss({a}, heads, ids, mask, tokens(), true, true).total.item<double>() -
                 1.30) < 1e-6);
    QVERIFY(
        std::abs(guidanceLoss({a}, heads, ids, mask, tokens(), true, false).total.item<double>() -
                 0.325) < 1e-6);
  }

  void paddingNeverContributes_data() {
    QTest::addColumn<bool>("frobenius");
    QTest::newRow("frobenius") << true;
    QTest::newRow("mean") << false;
  }
  void paddingNeverContributes() {
    QFETCH(bool, frobenius);
    const auto probs = mixedProbabilities();
    const auto heads = mixedHeads();
    const auto ids = idsTensor(kIds);
    const auto mask = idsTensor(kMask).ne(0);
    const auto before = guidanceLoss(probs, heads, ids, mask, tokens(), true, frobenius);
    // Scribble over the padded row and column (position 4 of the second sequence).
    std::vector<torch::Tensor> changed;
    for (const auto& p : probs) {
      if (!p.defined()) {
        changed.push_back(p);
        continue;
      }
      auto c = p.clone();
      c[1].select(1, 4).copy_(torch::rand({4, 5}) * 50.0);
      c[1].select(2, 4).copy_(torch::rand({4, 5}) * -50.0);
      changed.push_back(c);
    }
    QVERIFY(!torch::equal(changed[0], probs[0]));
    const auto after = guidanceLoss(changed, heads, ids, mask, tokens(), true, frobenius);
    QCOMPARE(after.total.item<double>(), before.total.item<double>());
    for (const auto& [pattern, part] : before.perPattern)
      QCOMPARE(after.perPattern.at(pattern).item<double>(), part.item<double>());
  }

  void gradientsReachProbabilities() {
    auto a0 = randomAttention(2, 4, 5).requires_grad_();
    auto a2 = randomAttention(2, 4, 5).requires_grad_();
    const auto heads = mixedHeads();
    const auto loss = guidanceLoss({a0, torch::Tensor(), a2}, heads, idsTensor(kIds),
                                   idsTensor(kMask).ne(0), tokens(), true, true);
    QVERIFY(loss.total.requires_grad());
    for (const auto& [pattern, part] : loss.perPattern) QVERIFY(!part.requires_grad());
    loss.total.backward();
    // d/dA sum_heads mean_b ||A - P||^2 = 2 (A - P) / B on real cells of guided heads, 0
    // elsewhere: built here from the loop patterns.
    const std::vector<torch::Tensor> leaves = {a0, torch::Tensor(), a2};
    for (std::size_t l : {std::size_t(0), std::size_t(2)}) {
      const auto a = leaves[l].detach().to(torch::kFloat64);
      auto expected = torch::zeros_like(a);
      for (std::size_t h = 0; h < heads[l].size(); ++h) {
        if (heads[l][h] == GuidancePattern::None) continue;
        const auto p = referencePatterns(heads[l][h], kIds, kMask, tokens(), true);
        for (int b = 0; b < 2; ++b)
          for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 5; ++j) {
              if (!kMask[b][i] || !kMask[b][j]) continue;
              expected[b][long(h)][i][j] =
                  2.0 * (a[b][long(h)][i][j].item<double>() - p[b][i][j]) / 2.0;
            }
      }
      verifyClose(leaves[l].grad(), expected, 1e-6);
    }
    // The unguided head and the padded cells get exactly nothing.
    QCOMPARE(a2.grad().select(1, 2).abs().sum().item<double>(), 0.0);
    QCOMPARE(a0.grad()[1].select(1, 4).abs().sum().item<double>(), 0.0);
    QCOMPARE(a0.grad()[1].select(2, 4).abs().sum().item<double>(), 0.0);
  }

  void noGuidedHeadGivesZero() {
    const auto loss = guidanceLoss({randomAttention(2, 4, 5)}, {{}}, idsTensor(kIds),
                                   idsTensor(kMask), tokens(), true, true);
    QCOMPARE(loss.total.dim(), 0);
    QCOMPARE(loss.total.item<double>(), 0.0);
    QVERIFY(loss.perPattern.empty());
  }

  // --- weight schedule --------------------------------------------------------------------
  void linearSchedule() {
    GuidanceConfig c;
    c.weight = 2.0;
    c.schedule = GuidanceSchedule::Linear;
    QCOMPARE(guidanceWeight(c, 0, 100), 2.0);
    QCOMPARE(guidanceWeight(c, 25, 100), 1.5);  // 2 * (1 - 0.25)
    QCOMPARE(guidanceWeight(c, 50, 100), 1.0);
    QCOMPARE(guidanceWeight(c, 99, 100), 0.02);  // 2 * 0.01
    QCOMPARE(guidanceWeight(c, 100, 100), 0.0);
    QCOMPARE(guidanceWeight(c, 150, 100), 0.0);
  }
  void holdSchedule() {
    GuidanceConfig c;
    c.weight = 2.0;
    c.schedule = GuidanceSchedule::Hold;
    c.holdSteps = 20;
    QCOMPARE(guidanceWeight(c, 0, 100), 2.0);
    QCOMPARE(guidanceWeight(c, 19, 100), 2.0);
    QCOMPARE(guidanceWeight(c, 20, 100), 2.0);   // 2 * 80 / 80
    QCOMPARE(guidanceWeight(c, 60, 100), 1.0);   // 2 * 40 / 80
    QCOMPARE(guidanceWeight(c, 90, 100), 0.25);  // 2 * 10 / 80
    QCOMPARE(guidanceWeight(c, 100, 100), 0.0);
    QCOMPARE(guidanceWeight(c, 130, 100), 0.0);
    // Holding past the end: constant to the end, then max(1, ...) keeps it finite.
    c.holdSteps = 200;
    QCOMPARE(guidanceWeight(c, 100, 100), 2.0);
    QCOMPARE(guidanceWeight(c, 250, 100), 0.0);
  }

  // --- ASA: KL ----------------------------------------------------------------------------
  void forwardKlMatchesFormula() {
    const auto clean = torch::randn({6, 7}) * 2.0;
    const auto adv = torch::randn({6, 7}) * 2.0;
    const double expected = referenceKl(clean, adv);
    const auto kl = predictionKl(clean, adv, false);
    QCOMPARE(kl.dim(), 0);
    QVERIFY2(std::abs(kl.item<double>() - expected) < 1e-5 * std::max(1.0, expected),
             qPrintable(QString("%1 vs %2").arg(kl.item<double>()).arg(expected)));
    QVERIFY(expected > 0.0);
  }
  void symmetricKlMatchesFormula() {
    const auto clean = torch::randn({5, 9}, torch::kFloat64);
    const auto adv = torch::randn({5, 9}, torch::kFloat64);
    const double expected = 0.5 * (referenceKl(clean, adv) + referenceKl(adv, clean));
    QVERIFY(std::abs(predictionKl(clean, adv, true).item<double>() - expected) < 1e-10);
    // Symmetric in its arguments, unlike the forward one.
    QVERIFY(std::abs(predictionKl(adv, clean, true).item<double>() - expected) < 1e-10);
    QVERIFY(std::abs(predictionKl(adv, clean, false).item<double>() -
                     predictionKl(clean, adv, false).item<double>()) > 1e-6);
  }
  void klIsZeroForIdenticalLogits() {
    const auto x = torch::randn({4, 11}) * 3.0;
    QVERIFY(std::abs(predictionKl(x, x.clone(), false).item<double>()) < 1e-7);
    QVERIFY(std::abs(predictionKl(x, x.clone(), true).item<double>()) < 1e-7);
    // A shift of all logits of a row leaves the distribution unchanged.
    QVERIFY(std::abs(predictionKl(x, x + 5.0, true).item<double>()) < 1e-5);
  }
  void klIsStableForLargeLogits() {
    auto clean = torch::zeros({1, 3});
    clean[0][0] = 1000.0;  // p = (1, 0, 0) up to e^-1000
    auto adv = torch::zeros({1, 3});
    adv[0][1] = 1000.0;  // q = (0, 1, 0)
    // KL = log p0 - log q0 = 0 - (-1000) = 1000 (log_softmax keeps it finite).
    const double kl = predictionKl(clean, adv, false).item<double>();
    QVERIFY2(std::abs(kl - 1000.0) < 1e-2, qPrintable(QString::number(kl)));
  }
  void klGradientsReachBothInputs() {
    auto clean = torch::randn({3, 5}, torch::kFloat64).requires_grad_();
    auto adv = torch::randn({3, 5}, torch::kFloat64).requires_grad_();
    predictionKl(clean, adv, false).backward();
    QVERIFY(clean.grad().defined() && adv.grad().defined());
    QVERIFY(clean.grad().abs().sum().item<double>() > 0);
    // d KL(p || q) / d adv = (q - p) / N, row by row.
    const auto p = torch::softmax(clean.detach(), -1), q = torch::softmax(adv.detach(), -1);
    verifyClose(adv.grad(), (q - p) / 3.0, 1e-12);
    clean.mutable_grad() = torch::Tensor();
    adv.mutable_grad() = torch::Tensor();
    predictionKl(clean, adv, true).backward();
    QVERIFY(clean.grad().abs().sum().item<double>() > 0);
    QVERIFY(adv.grad().abs().sum().item<double>() > 0);
  }

  void perSequenceKlIsTheRowSumOverTheBatch() {
    // kl_reduction = batchmean: KLDivLoss(reduction="batchmean") on [B, T, V] divides the sum
    // over every row and class by B, not by the number of rows: 7 rows of a batch of 2 give
    // 7/2 times the row mean.
    const auto clean = torch::randn({7, 9}, torch::kFloat64);
    const auto adv = torch::randn({7, 9}, torch::kFloat64);
    const double rowMean = referenceKl(clean, adv);
    QVERIFY(std::abs(predictionKlPerSequence(clean, adv, false, 2).item<double>() -
                     rowMean * 7.0 / 2.0) < 1e-10);
    const double symmetricMean = 0.5 * (rowMean + referenceKl(adv, clean));
    QVERIFY(std::abs(predictionKlPerSequence(clean, adv, true, 2).item<double>() -
                     symmetricMean * 7.0 / 2.0) < 1e-10);
    // Divided by the number of rows it is predictionKl, bit for bit.
    QCOMPARE(predictionKlPerSequence(clean, adv, true, 7).item<double>(),
             predictionKl(clean, adv, true).item<double>());
    // Its gradient with respect to the adversarial logits: (q - p) / B, row by row.
    auto a = clean.clone().requires_grad_(), b = adv.clone().requires_grad_();
    predictionKlPerSequence(a, b, false, 2).backward();
    verifyClose(b.grad(), (torch::softmax(adv, -1) - torch::softmax(clean, -1)) / 2.0, 1e-12);
  }

  // --- ASA: penalty and proportion --------------------------------------------------------
  void maskPenaltyByHand() {
    // Layer 1: B = 2, sums 5 and 5 -> 10 / 2 = 5. Layer 2: sum 6 -> 3. Total 8.
    const auto m1 =
        torch::tensor({1., 1., 0., 1., 0., 0., 1., 0., 1., 1., 1., 1., 0., 0., 0., 0., 1., 1.})
            .view({2, 3, 3})
            .requires_grad_();
    const auto m2 =
        torch::tensor({1., 0., 0., 1., 0., 0., 0., 0., 1., 1., 1., 0., 0., 0., 1., 0., 0., 0.})
            .view({2, 3, 3});
    QCOMPARE(m1.sum().item<double>(), 10.0);
    QCOMPARE(m2.sum().item<double>(), 6.0);
    const auto tauPenalty = maskPenalty({m1, torch::Tensor(), m2}, 0.5, false);
    QCOMPARE(tauPenalty.dim(), 0);
    QCOMPARE(tauPenalty.item<double>(), 4.0);                        // 0.5 * 8
    QCOMPARE(maskPenalty({m1, m2}, 0.5, true).item<double>(), 2.0);  // 0.25 * 8
    QCOMPARE(maskPenalty({}, 0.5, true).item<double>(), 0.0);
    tauPenalty.backward();
    // Each cell of layer 1 adds tau / B = 0.25.
    verifyClose(m1.grad(), torch::full({2, 3, 3}, 0.25), 1e-12);
  }

  void maskPenaltyIsTheOfficialSumOverCells() {
    // The reduction of the official code (modeling/bert.py, AsaBert*.forward):
    //   rloss = sum([aa.sum() / aa.shape[0] for aa in adv_outputs[-1]])
    // i.e. per layer the count of kept cells over all B x T x T cells (one single-head mask
    // per layer, so no head factor), divided by B, summed (not averaged) over layers; the
    // loss adds tau^2 rloss (code) or tau rloss (paper). Counted here with plain loops at the
    // paper's pre-training tau = 0.1, with a padded sequence whose pad key column is 0 (as
    // the adversary makes it) and whose pad query row still counts (as in the code).
    constexpr int L = 3, B = 3, T = 4;
    const double tau = 0.1;
    std::vector<torch::Tensor> masks;
    double kept = 0;  // sum over layers of sum over cells
    for (int l = 0; l < L; ++l) {
      auto m = torch::zeros({B, T, T}, torch::kDouble);
      auto a = m.accessor<double, 3>();
      for (int b = 0; b < B; ++b)
        for (int i = 0; i < T; ++i)
          for (int j = 0; j < T; ++j) {
            const bool padKey = b == 2 && j == T - 1;
            const bool on = !padKey && (l * 7 + b * 5 + i * 3 + j) % 4 != 0;
            a[b][i][j] = on ? 1.0 : 0.0;
            kept += on ? 1.0 : 0.0;
          }
      masks.push_back(m.requires_grad_());
    }
    const double rloss = kept / B;
    QVERIFY(kept > 0 && kept < L * B * T * T);
    const auto paper = maskPenalty(masks, tau, false);
    QVERIFY(std::abs(paper.item<double>() - tau * rloss) < 1e-12);
    QVERIFY(std::abs(maskPenalty(masks, tau, true).item<double>() - tau * tau * rloss) < 1e-12);
    // Not a mean over the cells (that would be T x T = 16 times smaller per layer).
    QVERIFY(paper.item<double>() > 10.0 * tau * kept / (B * T * T));
    // Every cell's gradient is tau / B, whatever T and L.
    paper.backward();
    for (const auto& m : masks)
      verifyClose(m.grad(), torch::full({B, T, T}, tau / B, torch::kDouble), 1e-12);
  }

  void maskingProportionByHand() {
    const auto attention = torch::tensor({true, true, true, true, true, false}).view({2, 3});
    // Real cells: 9 (first) + 4 (second, 2 x 2) = 13. Masked real cells: 2 in the first,
    // 1 in the second. The second's pad column is 0 everywhere, as the adversary produces,
    // and its pad row is masked too: neither counts. Kept cells are 1 only up to rounding.
    const auto keep = torch::tensor({1.0f, 0.0f, 1.0000001f, 0.0f, 0.9999999f, 1.0f, 1.0f, 1.0f,
                                     1.0f, 1.0f, 0.0f, 0.0f, 1.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f})
                          .view({2, 3, 3});
    const auto share = maskingProportion(keep, attention);
    QCOMPARE(share.dim(), 0);
    QVERIFY(!share.requires_grad());
    QVERIFY(std::abs(share.item<double>() - 3.0 / 13.0) < 1e-7);
    // Integer attention masks work the same; no real cell at all gives 0, not NaN.
    QVERIFY(std::abs(maskingProportion(keep, attention.to(torch::kLong)).item<double>() -
                     3.0 / 13.0) < 1e-7);
    QCOMPARE(maskingProportion(keep, torch::zeros({2, 3})).item<double>(), 0.0);
  }
};

QTEST_APPLESS_MAIN(TestObjectives)
#include "test_objectives.moc"
