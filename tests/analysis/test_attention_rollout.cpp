// Attention rollout against a numpy re-implementation written from the paper
// (tests/analysis/rollout_reference.py), and against cases whose rollout is known by hand.
#include "analysis/attention/attention_rollout.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <random>
#include <vector>

using attnlab::analysis::attentionRollout;
using attnlab::analysis::AttentionStack;

namespace {

// Random row-stochastic attention [L][H][T][T]; keys at or past `valid` get nothing, as the
// padding mask makes it.
std::vector<float> randomAttention(int layers, int heads, int length, int valid, unsigned seed) {
  std::mt19937 rng(seed);
  std::gamma_distribution<float> draw(0.5f, 1.0f);  // peaked rows, like trained heads'
  std::vector<float> a(static_cast<std::size_t>(layers) * heads * length * length, 0.0f);
  for (int m = 0; m < layers * heads; ++m)
    for (int i = 0; i < length; ++i) {
      float* row = a.data() + (static_cast<std::size_t>(m) * length + i) * length;
      float sum = 0;
      for (int j = 0; j < valid; ++j) sum += (row[j] = draw(rng) + 1e-6f);
      for (int j = 0; j < valid; ++j) row[j] /= sum;
    }
  return a;
}

}  // namespace

class TestAttentionRollout : public QObject {
  Q_OBJECT

 private slots:
  void matchesTheNumpyReference_data() {
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("length");
    QTest::addColumn<int>("valid");
    QTest::newRow("2 x 4, 16 tokens") << 2 << 4 << 16 << 16;
    QTest::newRow("6 x 3, 40 tokens, 29 real") << 6 << 3 << 40 << 29;
    QTest::newRow("12 x 12, 64 tokens") << 12 << 12 << 64 << 64;
  }
  void matchesTheNumpyReference() {
    QFETCH(int, layers);
    QFETCH(int, heads);
    QFETCH(int, length);
    QFETCH(int, valid);
    const auto a = randomAttention(layers, heads, length, valid, 17u + layers);
    const auto ours = attentionRollout({a.data(), layers, heads, length}, valid);
    QTemporaryDir dir;
    const QString in = dir.filePath("attention.f32"), out = dir.filePath("rollout.f64");
    std::ofstream(in.toStdString(), std::ios::binary)
        .write(reinterpret_cast<const char*>(a.data()),
               static_cast<std::streamsize>(a.size() * sizeof(float)));
    QProcess py;
    py.start(QStringLiteral(ATTNLAB_PYTHON),
             {QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/analysis/rollout_reference.py"), in,
              QString::number(layers), QString::number(heads), QString::number(length),
              QString::number(valid), out});
    QVERIFY(py.waitForFinished(60000));
    QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
    std::vector<double> reference(ours.size());
    std::ifstream(out.toStdString(), std::ios::binary)
        .read(reinterpret_cast<char*>(reference.data()),
              static_cast<std::streamsize>(reference.size() * sizeof(double)));
    double worst = 0;
    for (std::size_t i = 0; i < ours.size(); ++i)
      worst = std::max(worst, std::fabs(ours[i] - reference[i]));
    QVERIFY2(worst < 1e-12, qPrintable(QString::number(worst)));
  }

  // Every row of every layer's rollout is a distribution over the real positions.
  void rowsAreDistributions() {
    const auto a = randomAttention(4, 2, 10, 7, 3);
    const auto r = attentionRollout({a.data(), 4, 2, 10}, 7);
    QCOMPARE(r.size(), std::size_t{4 * 7 * 7});
    for (int row = 0; row < 4 * 7; ++row) {
      double sum = 0;
      for (int j = 0; j < 7; ++j) sum += r[row * 7 + j];
      QVERIFY(std::fabs(sum - 1.0) < 1e-12);
    }
  }

  // By hand: one layer of uniform attention over n keys gives 1/(2n) off the diagonal and
  // 1/2 + 1/(2n) on it; a second identical layer squares that matrix.
  void uniformAttentionByHand() {
    const int n = 4;
    std::vector<float> a(2 * n * n, 1.0f / n);
    const auto r = attentionRollout({a.data(), 2, 1, n});
    const double off = 1.0 / (2 * n), diag = 0.5 + off;
    QVERIFY(std::fabs(r[0] - diag) < 1e-15 && std::fabs(r[1] - off) < 1e-15);
    // Layer 2: (diag^2 + (n-1) off^2) on the diagonal.
    const double diag2 = diag * diag + (n - 1) * off * off;
    QVERIFY(std::fabs(r[n * n] - diag2) < 1e-15);
  }

  // By hand, three tokens, two heads, two layers (every number exact in binary):
  //   layer 0: head 0 rows [1,0,0] [.5,.5,0] [0,0,1], head 1 rows [1,0,0] [.5,.5,0] [0,1,0]
  //     mean + I, rows / 2 -> [1,0,0] [.25,.75,0] [0,.25,.75]                  = R_0
  //   layer 1: both heads attend to token 1: mean + I, rows / 2 -> [.5,.5,0] [0,1,0] [0,.5,.5]
  //     R_1 = A~_1 R_0 = [.625,.375,0] [.25,.75,0] [.125,.5,.375]
  void threeTokensByHand() {
    const std::vector<float> a = {1, 0, 0, .5f, .5f, 0, 0, 0, 1,   // layer 0, head 0
                                  1, 0, 0, .5f, .5f, 0, 0, 1, 0,   // layer 0, head 1
                                  0, 1, 0, 0,   1,   0, 0, 1, 0,   // layer 1, head 0
                                  0, 1, 0, 0,   1,   0, 0, 1, 0};  // layer 1, head 1
    const auto r = attentionRollout({a.data(), 2, 2, 3});
    const std::vector<double> expected = {1,    0,    0, .25, .75, 0, 0,    .25, .75,
                                          .625, .375, 0, .25, .75, 0, .125, .5,  .375};
    QCOMPARE(r, expected);
  }

  void badInputSaysWhat() {
    std::vector<float> a(4, 0.25f);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, attentionRollout({nullptr, 1, 1, 2}));
    try {
      attentionRollout({a.data(), 1, 1, 2}, 3);
      QFAIL("a valid length beyond the sequence must be refused");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(
          std::string(e.what()).find("3 valid positions for a sequence of 2") != std::string::npos,
          e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestAttentionRollout)
#include "test_attention_rollout.moc"
