// The spectral norm of the query-key form under rotary positions (core/health/
// rotary_spectral.h) against the D x D form built here from RoPE's formula: R(r) as a dense
// matrix that turns the pair (m, m + d/2) by r * theta^(-2m/d), then A_q^T R(r) A_k and its
// singular values. That the engine's rotary layer applies exactly this form to the scores
// is checked on its own, through core/model/rotary_positions.h.
#include "core/config/run_config.h"
#include "core/health/attention_spectral.h"
#include "core/health/rotary_spectral.h"
#include "core/model/rotary_positions.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>

using namespace attnlab::core;

namespace {

/// RoPE's rotation by offset r over d dimensions (GPT-NeoX / ModernBERT pairing), written out.
at::Tensor rotation(int64_t d, double theta, int64_t r) {
  auto R = torch::zeros({d, d}, torch::kFloat64);
  const int64_t half = d / 2;
  for (int64_t m = 0; m < half; ++m) {
    const double angle = double(r) * std::pow(theta, -2.0 * double(m) / double(d));
    R[m][m] = std::cos(angle);
    R[m][m + half] = -std::sin(angle);
    R[m + half][m] = std::sin(angle);
    R[m + half][m + half] = std::cos(angle);
  }
  return R;
}

/// sigma_max(A_q^T R(r) A_k) for A [d, D].
double formedNorm(const at::Tensor& aq, const at::Tensor& ak, double theta, int64_t r) {
  const auto form = torch::matmul(aq.t(), torch::matmul(rotation(aq.size(0), theta, r), ak));
  return torch::linalg_svdvals(form).max().item<double>();
}

}  // namespace

class TestRotarySpectral : public QObject {
  Q_OBJECT

 private slots:
  void largestOverOffsetsAgainstTheFormedForm() {
    torch::manual_seed(3);
    const int64_t H = 3, d = 8, D = 20, reach = 6;
    const double theta = 100.0;
    const auto aq = torch::randn({H, d, D}, torch::kFloat64);
    const auto ak = torch::randn({H, d, D}, torch::kFloat64);
    const auto scales = torch::tensor({0.5, -2.0, 1.0}, torch::kFloat64);
    const auto got = rotaryHeadSpectralNorms(aq, ak, scales, theta, reach);
    for (int64_t h = 0; h < H; ++h) {
      double best = -1;
      int64_t bestOffset = 0;
      for (int64_t r = -reach; r <= reach; ++r) {
        const double n = formedNorm(aq[h], ak[h], theta, r);
        if (n > best) best = n, bestOffset = r;
      }
      best *= std::abs(scales[h].item<double>());
      const double norm = got.norm[h].item<double>();
      QVERIFY2(std::abs(norm - best) < 1e-10 * best,
               qPrintable(QString("head %1: %2 vs %3").arg(h).arg(norm).arg(best)));
      QCOMPARE(got.offset[h].item<int64_t>(), bestOffset);
      // The offsets matter: some offset's form differs from offset 0's.
      QVERIFY(std::abs(formedNorm(aq[h], ak[h], theta, 0) - formedNorm(aq[h], ak[h], theta, 3)) >
              1e-3);
    }
  }

  void offsetsBeyondOneBatchOfSvds() {
    // 601 offsets: three batches of at most 256 (the first ends at r = -45); over several
    // heads the largest sits in a later batch at least once.
    torch::manual_seed(11);
    const int64_t d = 4, D = 6, reach = 300;
    const double theta = 7.0;
    int beyondFirstBatch = 0;
    for (int trial = 0; trial < 8; ++trial) {
      const auto aq = torch::randn({1, d, D}, torch::kFloat64);
      const auto ak = torch::randn({1, d, D}, torch::kFloat64);
      const auto got =
          rotaryHeadSpectralNorms(aq, ak, torch::ones({1}, torch::kFloat64), theta, reach);
      double best = -1;
      int64_t bestOffset = 0;
      for (int64_t r = -reach; r <= reach; ++r) {
        const double n = formedNorm(aq[0], ak[0], theta, r);
        if (n > best) best = n, bestOffset = r;
      }
      QVERIFY(std::abs(got.norm[0].item<double>() - best) < 1e-10 * best);
      QCOMPARE(got.offset[0].item<int64_t>(), bestOffset);
      beyondFirstBatch += bestOffset > -reach + 255 ? 1 : 0;
    }
    QVERIFY(beyondFirstBatch > 0);
  }

  void offsetZeroIsThePlainSpectralNorm() {
    torch::manual_seed(5);
    const auto aq = torch::randn({2, 4, 12}, torch::kFloat64);
    const auto ak = torch::randn({2, 4, 12}, torch::kFloat64);
    const auto scales = torch::full({2}, 0.5, torch::kFloat64);
    const auto rotary = rotaryHeadSpectralNorms(aq, ak, scales, 10000.0, 0);
    const auto plain = headSpectralNorms(aq, ak, scales, 200);
    QVERIFY(torch::allclose(rotary.norm, plain, 1e-8, 0));
    QCOMPARE(rotary.offset[0].item<int64_t>(), int64_t(0));
  }

  void theEnginesRotaryScoresApplyTheForm() {
    // q_i . k_j after the engine's RoPE equals x_i^T A_q^T R(j - i) A_k x_j: the form above is
    // the one the scores apply, in the engine's own convention (key minus query).
    torch::manual_seed(7);
    const int64_t d = 8, D = 10, T = 9;
    const double theta = 50.0;
    const auto aq = torch::randn({d, D}, torch::kFloat64);
    const auto ak = torch::randn({d, D}, torch::kFloat64);
    const auto x = torch::randn({T, D}, torch::kFloat64);
    const auto q = torch::matmul(x, aq.t()).view({1, 1, T, d});
    const auto k = torch::matmul(x, ak.t()).view({1, 1, T, d});
    const auto [qr, kr] = RotaryPositions(int(d), theta).apply(q, k);
    const auto scores = torch::matmul(qr[0][0], kr[0][0].t());  // [T, T]
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j) {
        const auto form = torch::matmul(aq.t(), torch::matmul(rotation(d, theta, j - i), ak));
        const double expected = torch::dot(x[i], torch::mv(form, x[j])).item<double>();
        QVERIFY2(std::abs(scores[i][j].item<double>() - expected) < 1e-9,
                 qPrintable(QString("(%1, %2)").arg(i).arg(j)));
      }
  }

  void windowedLayersSearchTheirBandAtTheirBase() {
    ModelConfig config;
    config.layers = 4;
    config.position = PositionEncoding::Rope;
    config.attentionWindow = 8;
    config.globalEvery = 3;
    config.ropeTheta = 160000.0;
    config.ropeThetaLocal = 10000.0;
    QCOMPARE(rotaryReach(config, 0, 20), int64_t(19));  // global: the whole sequence
    QCOMPARE(rotaryReach(config, 1, 20), int64_t(4));   // windowed: 8 / 2 either side
    QCOMPARE(rotaryReach(config, 1, 3), int64_t(2));    // a sequence shorter than the band
    QCOMPARE(rotaryReach(config, 3, 1), int64_t(0));
    QCOMPARE(rotaryTheta(config, 0), 160000.0);
    QCOMPARE(rotaryTheta(config, 2), 10000.0);
  }
};

QTEST_APPLESS_MAIN(TestRotarySpectral)
#include "test_rotary_spectral.moc"
