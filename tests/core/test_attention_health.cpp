// Attention health (core/health, docs/analysis.md "Attention health") on hand-made inputs
// whose answers are known by construction: a head that sends every query to the first key (a
// sink: mass 1, entropy 0, every row collapsed) beside a uniform one (entropy log T), a
// planted massive activation, token classes from the three tokenizer families' spellings,
// a batch with padding that must not count, accumulation over batches equal to one batch of
// all, and the power iteration against LibTorch's SVD of the formed matrix.
#include "core/health/attention_health.h"
#include "core/health/attention_spectral.h"
#include "core/tokenizer/piece_roles.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>

using namespace attnlab::core;

namespace {

constexpr double kTol = 1e-12;

double at2(const at::Tensor& t, int64_t i, int64_t j) {
  return t[i][j].item<double>();
}

/// One layer, one sequence "<s> cat . </s>": head 0 all on key 0, head 1 uniform; residual
/// ones with 500 planted at (position 2, dimension 3).
HealthBatch sinkAndUniform() {
  const int64_t T = 4, D = 6;
  auto pattern = torch::zeros({1, 2, T, T}, torch::kFloat64);
  pattern.select(1, 0).select(2, 0).fill_(1.0);
  pattern.select(1, 1).fill_(0.25);
  auto scores = torch::arange(2 * T * T, torch::kFloat64).view({1, 2, T, T}) / 10.0;
  auto residual = torch::ones({1, T, D}, torch::kFloat64);
  residual[0][2][3] = -500.0;
  residual[0][1][0] = 7.0;
  residual[0][3][5] = 9.0;
  HealthBatch b;
  b.pattern = {pattern};
  b.scores = {scores};
  b.residual = {residual};
  b.realTokens = torch::ones({1, T}, torch::kBool);
  b.classes = sinkClassesOf({"<s>",
                             "\xE2\x96\x81"
                             "cat",
                             "\xE2\x96\x81.", "</s>"},
                            1, T);
  return b;
}

}  // namespace

class TestAttentionHealth : public QObject {
  Q_OBJECT

 private slots:
  void tokenClassesBySpelling() {
    QVERIFY(isPunctuationPiece("."));
    QVERIFY(isPunctuationPiece("\xE2\x96\x81,"));
    QVERIFY(isPunctuationPiece("\xC4\xA0!"));
    QVERIFY(isPunctuationPiece("##)"));
    QVERIFY(isPunctuationPiece("--"));
    QVERIFY(!isPunctuationPiece("<s>"));
    QVERIFY(!isPunctuationPiece("[SEP]"));
    QVERIFY(!isPunctuationPiece("\xE2\x96\x81"));
    QVERIFY(!isPunctuationPiece("a."));
    const auto c = sinkClassesOf({"[CLS]", "cat", ".", "[SEP]", "<pad>", "</s>"}, 1, 6);
    const std::vector<int64_t> expected = {1, 4, 3, 2, 4, 2};
    QCOMPARE(std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + 6), expected);
  }

  void aKnownSinkACollapseAndAMassiveActivation() {
    HealthAccumulator acc;
    acc.add(sinkAndUniform());
    const auto r = acc.result();
    // classMass [1, 2, 5]: first, cls, sep, punctuation, other.
    const auto m = r.classMass[0];
    for (int c : {0, 1}) QVERIFY(std::abs(at2(m, 0, c) - 1.0) < kTol);
    for (int c : {2, 3, 4}) QVERIFY(std::abs(at2(m, 0, c)) < kTol);
    for (int c = 0; c < 5; ++c) QVERIFY(std::abs(at2(m, 1, c) - 0.25) < kTol);
    // Sink rate: head 0 exceeds 0.3 on first and cls; head 1 nowhere.
    const std::vector<double> rate = {0.5, 0.5, 0, 0, 0};
    for (int c = 0; c < 5; ++c)
      QVERIFY(std::abs(r.sinkRate[c].item<double>() - rate[size_t(c)]) < kTol);
    QVERIFY(std::abs(at2(r.topKeyMass, 0, 0) - 1.0) < kTol);
    QCOMPARE(r.topKeyClass[0][0].item<int64_t>(), int64_t(SinkClass::First));
    QVERIFY(std::abs(at2(r.topKeyMass, 0, 1) - 0.25) < kTol);
    // Entropy: 0 for the sink head (every row collapsed), log 4 for the uniform one.
    QVERIFY(std::abs(at2(r.entropyMean, 0, 0)) < kTol);
    QVERIFY(std::abs(at2(r.entropyMin, 0, 0)) < kTol);
    QVERIFY(std::abs(at2(r.collapsedShare, 0, 0) - 1.0) < kTol);
    QVERIFY(std::abs(at2(r.entropyMean, 0, 1) - std::log(4.0)) < kTol);
    QVERIFY(std::abs(at2(r.collapsedShare, 0, 1)) < kTol);
    // S_max: the largest score of each head (arange / 10).
    QVERIFY(std::abs(at2(r.logitMax, 0, 0) - 1.5) < kTol);
    QVERIFY(std::abs(at2(r.logitMax, 0, 1) - 3.1) < kTol);
    // Massive: |-500| at position 2, dimension 3, then 9 and 7; median of 24 entries, 21 of
    // them 1, is 1.
    const auto& top = r.massive[0];
    QCOMPARE(top[0].magnitude, 500.0);
    QCOMPARE(top[0].position, int64_t(2));
    QCOMPARE(top[0].dimension, int64_t(3));
    QCOMPARE(top[1].magnitude, 9.0);
    QCOMPARE(top[2].magnitude, 7.0);
    QCOMPARE(r.medianAbs[0].item<double>(), 1.0);
    QCOMPARE(r.massiveRatio[0].item<double>(), 500.0);
  }

  void rankCollapseOfKnownRows() {
    auto b = sinkAndUniform();
    // Rows e1, e2, e1 + e2, 0-padding: residual and cosines by hand.
    auto x = torch::zeros({1, 4, 2}, torch::kFloat64);
    x[0][0][0] = 1;
    x[0][1][1] = 1;
    x[0][2][0] = 1;
    x[0][2][1] = 1;
    x[0][3][0] = 123;  // padding: must not count
    b.residual = {x};
    b.realTokens = torch::tensor({true, true, true, false}).view({1, 4});
    HealthAccumulator acc;
    acc.add(b);
    const auto r = acc.result();
    // mean = (2/3, 2/3); ||X - mean||^2 = 3 * (1/9 + 4/9) + ... computed: rows minus mean:
    // (1/3, -2/3), (-2/3, 1/3), (1/3, 1/3) -> 5/9 + 5/9 + 2/9 = 4/3; ||X||^2 = 4.
    QVERIFY(std::abs(r.rankResidual[0].item<double>() - std::sqrt((4.0 / 3.0) / 4.0)) < 1e-12);
    // cosines: e1.e2 = 0, e1.(e1+e2)/sqrt2 = 1/sqrt2 twice: mean over 3 pairs.
    QVERIFY(std::abs(r.meanCosine[0].item<double>() - (2.0 / std::sqrt(2.0)) / 3.0) < 1e-12);
    QCOMPARE(r.massive[0][0].magnitude, 1.0);  // the padding's 123 never counts
  }

  void paddingDoesNotCount() {
    // The sink head again, with a padded key and query: their mass and rows leave no trace.
    auto b = sinkAndUniform();
    b.realTokens = torch::tensor({true, true, true, false}).view({1, 4});
    b.pattern[0].select(1, 1).select(2, 3).fill_(0.0);
    b.pattern[0].select(1, 1).narrow(2, 0, 3).fill_(1.0 / 3.0);
    b.scores[0][0][0][0][3] = 1e6;  // a padded key's logit
    HealthAccumulator acc;
    acc.add(b);
    const auto r = acc.result();
    QVERIFY(std::abs(at2(r.entropyMean, 0, 1) - std::log(3.0)) < 1e-12);
    QCOMPARE(r.rows, int64_t(3));
    QVERIFY(at2(r.logitMax, 0, 0) < 2.0);
    QVERIFY(std::isnan(r.classMass[0][0][2].item<double>()));  // no real </s>: no mean
  }

  void batchesAccumulateAsOne() {
    torch::manual_seed(3);
    const int64_t L = 2, B = 4, H = 3, T = 7, D = 5;
    HealthBatch all;
    for (int64_t l = 0; l < L; ++l) {
      all.pattern.push_back(torch::softmax(torch::randn({B, H, T, T}, torch::kFloat64) * 3, -1));
      all.scores.push_back(torch::randn({B, H, T, T}, torch::kFloat64));
      all.residual.push_back(torch::randn({B, T, D}, torch::kFloat64));
    }
    all.realTokens = torch::ones({B, T}, torch::kBool);
    all.realTokens[3].narrow(0, 5, 2).fill_(false);
    std::vector<std::string> pieces;
    for (int64_t i = 0; i < B * T; ++i) pieces.push_back(i % T == 0 ? "<s>" : i % 3 ? "x" : ".");
    all.classes = sinkClassesOf(pieces, B, T);
    HealthAccumulator one;
    one.add(all);
    HealthAccumulator two;
    for (int64_t start : {0, 2}) {
      HealthBatch half;
      for (int64_t l = 0; l < L; ++l) {
        half.pattern.push_back(all.pattern[size_t(l)].narrow(0, start, 2));
        half.scores.push_back(all.scores[size_t(l)].narrow(0, start, 2));
        half.residual.push_back(all.residual[size_t(l)].narrow(0, start, 2));
      }
      half.realTokens = all.realTokens.narrow(0, start, 2);
      half.classes = all.classes.narrow(0, start, 2);
      two.add(half);
    }
    const auto a = one.result(), b = two.result();
    QVERIFY(torch::isnan(a.classMass).equal(torch::isnan(b.classMass)));  // the same absences
    for (const auto& [x, y] :
         std::vector<std::pair<at::Tensor, at::Tensor>>{{a.classMass, b.classMass},
                                                        {a.entropyMean, b.entropyMean},
                                                        {a.entropyMin, b.entropyMin},
                                                        {a.logitMax, b.logitMax},
                                                        {a.topKeyMass, b.topKeyMass},
                                                        {a.rankResidual, b.rankResidual},
                                                        {a.meanCosine, b.meanCosine},
                                                        {a.medianAbs, b.medianAbs}})
      QVERIFY2((x - y).abs().nan_to_num(0.0).max().item<double>() < 1e-12,
               qPrintable(QString::fromStdString(c10::str(x.sizes()))));
    for (int64_t l = 0; l < L; ++l) {
      QCOMPARE(a.massive[size_t(l)][0].magnitude, b.massive[size_t(l)][0].magnitude);
      QCOMPARE(a.massive[size_t(l)][0].sequence, b.massive[size_t(l)][0].sequence);
    }
  }

  void powerIterationAgainstTheSvd() {
    torch::manual_seed(9);
    for (const auto& [d, D] : std::vector<std::pair<int64_t, int64_t>>{{4, 16}, {16, 64}, {8, 8}}) {
      const auto q = torch::randn({d, D}, torch::kFloat64);
      const auto k = torch::randn({d, D}, torch::kFloat64);
      const double svd =
          std::get<1>(torch::svd(torch::matmul(q.t(), k))).max().item<double>() * 0.5;
      const double power = headSpectralNorm(q, k, 0.5);
      QVERIFY2(std::abs(power - svd) < 1e-6 * svd,
               qPrintable(QString("d=%1 D=%2: %3 vs %4").arg(d).arg(D).arg(power).arg(svd)));
    }
    // A negative control: too few iterations from the same start do not reach it.
    const auto q = torch::randn({16, 64}, torch::kFloat64);
    const auto k = torch::randn({16, 64}, torch::kFloat64);
    const double svd = std::get<1>(torch::svd(torch::matmul(q.t(), k))).max().item<double>();
    QVERIFY(std::abs(headSpectralNorm(q, k, 1.0, 0) - svd) > 1e-3 * svd);
  }

  void notProbabilitiesAreNormalisedByMagnitude() {
    // A signed map (differential attention's kind): |s| / sum |s| per row.
    auto b = sinkAndUniform();
    b.pattern[0].select(1, 1).fill_(-0.5);
    b.pattern[0].select(1, 1).select(2, 1).fill_(1.5);  // |.|: 0.5, 1.5, 0.5, 0.5 -> /3
    HealthSettings s;
    s.probabilityMaps = false;
    HealthAccumulator acc(s);
    acc.add(b);
    const auto r = acc.result();
    QVERIFY(std::abs(at2(r.topKeyMass, 0, 1) - 0.5) < kTol);
    QCOMPARE(r.topKeyClass[0][1].item<int64_t>(), int64_t(SinkClass::Other));
    const double h = -(3 * (1.0 / 6) * std::log(1.0 / 6) + 0.5 * std::log(0.5));
    QVERIFY(std::abs(at2(r.entropyMean, 0, 1) - h) < 1e-12);
  }
};

QTEST_APPLESS_MAIN(TestAttentionHealth)
#include "test_attention_health.moc"
