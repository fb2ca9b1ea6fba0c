// The attention-variant building blocks (core/model/variants/) against computations written
// independently in this file: hand-checked entries, and each paper's formula as explicit
// loops in double over the module's own parameters.
#include "core/model/variants/attention_adversary.h"
#include "core/model/variants/conv_attention.h"
#include "core/model/variants/gaussian_blur.h"
#include "core/model/variants/position_interactions.h"
#include "core/model/variants/squeeze_excitation.h"
#include "tests/support/reference_conv_attention.h"
#include "tests/support/tensor_checks.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace attnlab::core;

namespace {

using attnlab::tests::conv1dLoop;
using attnlab::tests::conv2dLoop;
using attnlab::tests::maxAbsDiff;
using attnlab::tests::throwsTorchError;

torch::Tensor param(torch::nn::Module& m, const std::string& name) {
  return m.named_parameters()[name].detach().to(torch::kFloat64).contiguous();
}

double sigmoid(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

// The ASA score matrix for one module, in double: S = (x Wq^T + bq)(x Wk^T + bk)^T / sqrt(H)
// with -10000 on padding keys. x [B, T, H] double; keep [B][T].
std::vector<std::vector<std::vector<double>>> adversaryScores(
    torch::nn::Module& adversary, const torch::Tensor& x,
    const std::vector<std::vector<bool>>& keep) {
  const auto wq = param(adversary, "query.weight"), bq = param(adversary, "query.bias");
  const auto wk = param(adversary, "key.weight"), bk = param(adversary, "key.bias");
  const auto B = x.size(0), T = x.size(1), H = x.size(2);
  auto xa = x.accessor<double, 3>();
  auto wqa = wq.accessor<double, 2>(), wka = wk.accessor<double, 2>();
  auto bqa = bq.accessor<double, 1>(), bka = bk.accessor<double, 1>();
  std::vector<std::vector<std::vector<double>>> s(B, std::vector<std::vector<double>>(T));
  for (int64_t b = 0; b < B; ++b) {
    std::vector<std::vector<double>> q(T, std::vector<double>(H)), k = q;
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t o = 0; o < H; ++o) {
        double qs = bqa[o], ks = bka[o];
        for (int64_t c = 0; c < H; ++c) {
          qs += wqa[o][c] * xa[b][t][c];
          ks += wka[o][c] * xa[b][t][c];
        }
        q[t][o] = qs;
        k[t][o] = ks;
      }
    }
    for (int64_t i = 0; i < T; ++i) {
      s[b][i].resize(T);
      for (int64_t j = 0; j < T; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < H; ++c) dot += q[i][c] * k[j][c];
        s[b][i][j] = dot / std::sqrt(double(H)) + (keep[b][j] ? 0.0 : -10000.0);
      }
    }
  }
  return s;
}

}  // namespace

class TestVariantModules : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { torch::manual_seed(11); }

  // --- Dufter et al.: direct position interactions -----------------------------------

  void relativeDirectionalIndexing() {
    const int heads = 2, maxPos = 6;
    PositionInteractions pi(heads, maxPos, PositionMode::Relative, false);
    auto r = pi->named_parameters()["relative"];
    QCOMPARE(r.sizes().vec(), std::vector<int64_t>({heads, 2 * maxPos - 1}));
    QVERIFY(!pi->named_parameters().contains("absolute"));
    {
      torch::NoGradGuard g;
      for (int h = 0; h < heads; ++h)
        for (int n = 0; n < 2 * maxPos - 1; ++n) r[h][n] = 100.0 * h + n;
    }
    auto bias = pi->forward(4);
    QCOMPARE(bias.sizes().vec(), std::vector<int64_t>({heads, 4, 4}));
    // By hand, T = 4, max = 6: index i - j + 5.
    QCOMPARE(bias[0][0][0].item<double>(), 5.0);    // i = j
    QCOMPARE(bias[0][3][0].item<double>(), 8.0);    // i - j = 3
    QCOMPARE(bias[0][0][3].item<double>(), 2.0);    // i - j = -3
    QCOMPARE(bias[1][2][1].item<double>(), 106.0);  // head 1, i - j = 1
    QCOMPARE(bias[1][1][2].item<double>(), 104.0);  // direction matters
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          QCOMPARE(bias[h][i][j].item<double>(), 100.0 * h + (i - j + maxPos - 1));
  }

  void relativeSymmetricDependsOnDistanceOnly() {
    const int heads = 2, maxPos = 6;
    PositionInteractions pi(heads, maxPos, PositionMode::Relative, true);
    auto r = pi->named_parameters()["relative"];
    QCOMPARE(r.sizes().vec(), std::vector<int64_t>({heads, maxPos}));
    {
      torch::NoGradGuard g;
      for (int h = 0; h < heads; ++h)
        for (int n = 0; n < maxPos; ++n) r[h][n] = 100.0 * h + n;
    }
    auto bias = pi->forward(5);
    QCOMPARE(bias[1][0][3].item<double>(), 103.0);
    QCOMPARE(bias[1][3][0].item<double>(), 103.0);
    QCOMPARE(bias[0][4][4].item<double>(), 0.0);
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j)
          QCOMPARE(bias[h][i][j].item<double>(), 100.0 * h + std::abs(i - j));
    QVERIFY(torch::equal(bias, bias.transpose(1, 2)));
  }

  void absoluteSlicesTheFullMatrix() {
    PositionInteractions pi(3, 6, PositionMode::Absolute, false);
    QVERIFY(!pi->named_parameters().contains("relative"));
    auto p = pi->named_parameters()["absolute"].detach();
    QCOMPARE(p.sizes().vec(), std::vector<int64_t>({3, 6, 6}));
    auto bias = pi->forward(4);
    QCOMPARE(bias.sizes().vec(), std::vector<int64_t>({3, 4, 4}));
    for (int h = 0; h < 3; ++h)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) QCOMPARE(bias[h][i][j].item<float>(), p[h][i][j].item<float>());
    QVERIFY(torch::equal(pi->forward(6), p));
    std::string message;
    QVERIFY(throwsTorchError([&] { pi->forward(7); }, &message));
    QVERIFY2(message.find('7') != std::string::npos && message.find('6') != std::string::npos,
             message.c_str());
  }

  void bothIsTheSum_data() {
    QTest::addColumn<bool>("symmetric");
    QTest::newRow("directional (paper)") << false;
    QTest::newRow("symmetric (code)") << true;
  }
  void bothIsTheSum() {
    QFETCH(bool, symmetric);
    const int maxPos = 7, T = 5;
    PositionInteractions pi(2, maxPos, PositionMode::Both, symmetric);
    const auto p = param(*pi, "absolute");
    const auto r = param(*pi, "relative");
    const auto bias = pi->forward(T).to(torch::kFloat64);
    double err = 0;
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) {
          const int n = symmetric ? std::abs(i - j) : i - j + maxPos - 1;
          const double expected = p[h][i][j].item<double>() + r[h][n].item<double>();
          err = std::max(err, std::abs(bias[h][i][j].item<double>() - expected));
        }
    QVERIFY2(err < 1e-6, qPrintable(QString::number(err)));
  }

  void positionGradientsOnlyForUsedPositions_data() {
    QTest::addColumn<bool>("symmetric");
    QTest::newRow("directional") << false;
    QTest::newRow("symmetric") << true;
  }
  void positionGradientsOnlyForUsedPositions() {
    QFETCH(bool, symmetric);
    const int maxPos = 6, T = 3;
    PositionInteractions pi(2, maxPos, PositionMode::Both, symmetric);
    pi->forward(T).sum().backward();
    auto gp = pi->named_parameters()["absolute"].grad();
    auto gr = pi->named_parameters()["relative"].grad();
    QVERIFY(gp.defined() && gr.defined());
    for (int h = 0; h < 2; ++h) {
      for (int i = 0; i < maxPos; ++i)
        for (int j = 0; j < maxPos; ++j)
          QCOMPARE(gp[h][i][j].item<double>(), (i < T && j < T) ? 1.0 : 0.0);
      // The gradient of an entry is the number of cells that use it.
      std::vector<double> expected(gr.size(1), 0.0);
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) expected[symmetric ? std::abs(i - j) : i - j + maxPos - 1] += 1;
      for (int64_t n = 0; n < gr.size(1); ++n) QCOMPARE(gr[h][n].item<double>(), expected[n]);
    }
  }

  void positionGlorotNormalInit() {
    const int heads = 4, maxPos = 64;
    PositionInteractions pi(heads, maxPos, PositionMode::Both, false);
    auto p = pi->named_parameters()["absolute"];
    auto r = pi->named_parameters()["relative"];
    // Per head: the absolute matrix has fan_in = fan_out = 64; Keras gives a vector of n
    // entries fan_in = fan_out = sqrt(n).
    const double absStd = std::sqrt(2.0 / (2.0 * maxPos));
    const double relStd = std::sqrt(2.0 / (2.0 * std::sqrt(2.0 * maxPos - 1)));
    auto check = [](const torch::Tensor& t, double expected, double tolerance) {
      const double s = t.std().item<double>();
      QVERIFY2(std::abs(s / expected - 1) < tolerance,
               qPrintable(QString("std %1 expected %2").arg(s).arg(expected)));
      QVERIFY(std::abs(t.mean().item<double>()) < 3 * expected / std::sqrt(double(t.numel())));
    };
    check(p, absStd, 0.05);
    check(r, relStd, 0.12);
    {
      torch::NoGradGuard g;
      p.zero_();
      r.zero_();
    }
    pi->resetParameters();
    check(p, absStd, 0.05);
    check(r, relStd, 0.12);
  }

  // --- Dufter et al.: convolved attention ---------------------------------------------

  void conv1dByHand() {
    // All-ones filters, zero bias: out[i, f] = sum of the rows i-1..i+1 of A that exist,
    // and each row of A sums to 1, so 2, 3, 2 (the zero padding shows at the edges).
    ConvAttention1d conv(1, 3);
    {
      torch::NoGradGuard g;
      conv->named_parameters()["weight"].fill_(1.0);
    }
    auto a = torch::softmax(torch::randn({1, 1, 3, 3}), -1);
    auto out = conv->forward(a);
    QCOMPARE(out.sizes().vec(), std::vector<int64_t>({1, 1, 3, 3}));
    const double rows[3] = {2, 3, 2};
    for (int i = 0; i < 3; ++i)
      for (int f = 0; f < 3; ++f)
        QVERIFY(std::abs(out[0][0][i][f].item<double>() - rows[i]) < 1e-6);
  }

  void conv1dMatchesLoops() {
    const int B = 2, heads = 2, T = 5;
    ConvAttention1d conv(heads, T);
    QCOMPARE(conv->length(), T);
    QCOMPARE(conv->named_parameters()["weight"].sizes().vec(),
             std::vector<int64_t>({heads * T, T, 3}));
    QCOMPARE(conv->named_parameters()["bias"].sizes().vec(), std::vector<int64_t>({heads * T}));
    {
      torch::NoGradGuard g;
      conv->named_parameters()["weight"].normal_(0.0, 1.0);
      conv->named_parameters()["bias"].normal_(0.0, 0.5);
    }
    auto a = torch::softmax(torch::randn({B, heads, T, T}) * 2, -1);
    auto out = conv->forward(a).to(torch::kFloat64);
    QCOMPARE(out.sizes().vec(), std::vector<int64_t>({B, heads, T, T}));
    const auto expected = conv1dLoop(a, param(*conv, "weight"), param(*conv, "bias"));
    const double err = maxAbsDiff(out, expected);
    const auto zeros = expected.eq(0).sum().item<int64_t>();
    const auto positives = expected.gt(0).sum().item<int64_t>();
    QVERIFY2(err < 1e-5, qPrintable(QString::number(err)));
    QVERIFY(zeros > 0 && positives > 0);  // the check covered both sides of the ReLU
  }

  void conv1dRefusesOtherLengths() {
    ConvAttention1d conv(2, 5);
    std::string message;
    QVERIFY(throwsTorchError([&] { conv->forward(torch::rand({1, 2, 4, 4})); }, &message));
    QVERIFY2(message.find('5') != std::string::npos && message.find('4') != std::string::npos,
             message.c_str());
    QVERIFY(throwsTorchError([&] { conv->forward(torch::rand({1, 3, 5, 5})); }));
  }

  void conv2dByHand() {
    // One all-ones 3x3 filter, bias 0.5, A = 1: the count of in-range neighbours + 0.5.
    ConvAttention2d conv(1);
    {
      torch::NoGradGuard g;
      conv->named_parameters()["weight"].fill_(1.0);
      conv->named_parameters()["bias"].fill_(0.5);
    }
    auto out = conv->forward(torch::ones({1, 1, 3, 3}));
    QCOMPARE(out[0][0][0][0].item<double>(), 4.5);
    QCOMPARE(out[0][0][0][1].item<double>(), 6.5);
    QCOMPARE(out[0][0][1][1].item<double>(), 9.5);
    QCOMPARE(out[0][0][2][2].item<double>(), 4.5);
  }

  void conv2dMatchesLoops() {
    const int B = 2, heads = 3, T = 4;
    ConvAttention2d conv(heads);
    QCOMPARE(conv->named_parameters()["weight"].sizes().vec(),
             std::vector<int64_t>({heads, 1, 3, 3}));
    QCOMPARE(conv->named_parameters()["bias"].sizes().vec(), std::vector<int64_t>({heads}));
    {
      torch::NoGradGuard g;
      conv->named_parameters()["weight"].normal_(0.0, 1.0);
      conv->named_parameters()["bias"].normal_(0.0, 0.3);
    }
    auto a = torch::softmax(torch::randn({B, heads, T, T}) * 2, -1);
    auto out = conv->forward(a).to(torch::kFloat64);
    QCOMPARE(out.sizes().vec(), std::vector<int64_t>({B, heads, T, T}));
    const auto expected = conv2dLoop(a, param(*conv, "weight"), param(*conv, "bias"));
    const double err = maxAbsDiff(out, expected);
    const auto zeros = expected.eq(0).sum().item<int64_t>();
    const auto positives = expected.gt(0).sum().item<int64_t>();
    QVERIFY2(err < 1e-5, qPrintable(QString::number(err)));
    QVERIFY(zeros > 0 && positives > 0);
  }

  void convInitialisationAndGradients() {
    const int T = 8;
    ConvAttention1d conv1(2, T);
    ConvAttention2d conv2(2);
    // Glorot-uniform limits: sqrt(6 / (3T + 3T)) and sqrt(6 / (9 + 9)); zero biases.
    QVERIFY(param(*conv1, "weight").abs().max().item<double>() <= std::sqrt(1.0 / T) + 1e-7);
    QVERIFY(param(*conv1, "weight").abs().max().item<double>() > 0.8 * std::sqrt(1.0 / T));
    QVERIFY(param(*conv2, "weight").abs().max().item<double>() <= std::sqrt(1.0 / 3) + 1e-7);
    QCOMPARE(param(*conv1, "bias").abs().sum().item<double>(), 0.0);
    QCOMPARE(param(*conv2, "bias").abs().sum().item<double>(), 0.0);
    {
      torch::NoGradGuard g;
      conv1->named_parameters()["bias"].fill_(0.1);  // keep the ReLU open
      conv2->named_parameters()["bias"].fill_(0.1);
    }
    auto a = torch::softmax(torch::randn({2, 2, T, T}), -1).requires_grad_(true);
    (conv1->forward(a).sum() + conv2->forward(a).sum()).backward();
    for (auto* m : {static_cast<torch::nn::Module*>(conv1.get()),
                    static_cast<torch::nn::Module*>(conv2.get())}) {
      for (const auto& p : m->named_parameters()) {
        QVERIFY2(p.value().grad().defined(), p.key().c_str());
        QVERIFY2(p.value().grad().abs().sum().item<double>() > 0, p.key().c_str());
      }
    }
    QVERIFY(a.grad().defined() && a.grad().abs().sum().item<double>() > 0);
  }

  // --- SesameBERT: Gaussian blur ------------------------------------------------------

  void gaussianKernelValues() {
    auto k = gaussianKernel(3, 0.3);
    QCOMPARE(k.scalar_type(), torch::kFloat64);
    QCOMPARE(k.sizes().vec(), std::vector<int64_t>({3}));
    QVERIFY(!k.requires_grad());
    const double e = std::exp(-1.0 / (2 * 0.3 * 0.3));
    const double expected[3] = {e / (1 + 2 * e), 1 / (1 + 2 * e), e / (1 + 2 * e)};
    const double paper[3] = {0.0038, 0.9923, 0.0038};
    for (int m = 0; m < 3; ++m) {
      QVERIFY(std::abs(k[m].item<double>() - expected[m]) < 1e-4);
      QVERIFY(std::abs(k[m].item<double>() - paper[m]) < 1e-4);
    }
    // k = 5, sigma = 1: exp(-x^2 / 2) for x = -2..2, normalised.
    auto k5 = gaussianKernel(5, 1.0);
    double z = 0;
    for (int x = -2; x <= 2; ++x) z += std::exp(-x * x / 2.0);
    for (int x = -2; x <= 2; ++x)
      QVERIFY(std::abs(k5[x + 2].item<double>() - std::exp(-x * x / 2.0) / z) < 1e-6);
    for (auto [w, s] : std::vector<std::pair<int, double>>{{1, 0.3}, {3, 0.5}, {7, 2.0}, {9, 0.1}})
      QVERIFY(std::abs(gaussianKernel(w, s).to(torch::kFloat64).sum().item<double>() - 1) < 1e-6);
    QVERIFY(throwsTorchError([] { gaussianKernel(4, 1.0); }));
  }

  void blurByHand() {
    // x = 1, 2, 4 with [0.25, 0.5, 0.25] and the edges repeated:
    // 0.25*1 + 0.5*1 + 0.25*2, 0.25*1 + 0.5*2 + 0.25*4, 0.25*2 + 0.5*4 + 0.25*4.
    auto x = torch::tensor({1.0f, 2.0f, 4.0f}).view({1, 3, 1});
    auto out = blurAlongSequence(x, torch::tensor({0.25f, 0.5f, 0.25f}));
    QCOMPARE(out.sizes().vec(), std::vector<int64_t>({1, 3, 1}));
    QCOMPARE(out[0][0][0].item<double>(), 1.25);
    QCOMPARE(out[0][1][0].item<double>(), 2.25);
    QCOMPARE(out[0][2][0].item<double>(), 3.5);
  }

  void blurMatchesLoop_data() {
    QTest::addColumn<int>("window");
    QTest::addColumn<double>("sigma");
    QTest::addColumn<int>("length");
    QTest::newRow("k=3 sigma=0.3 (SesameBERT)") << 3 << 0.3 << 7;
    QTest::newRow("k=5 sigma=1") << 5 << 1.0 << 7;
    QTest::newRow("k=5, sequence shorter than the window") << 5 << 1.0 << 2;
    QTest::newRow("k=1") << 1 << 1.0 << 4;
  }
  void blurMatchesLoop() {
    QFETCH(int, window);
    QFETCH(double, sigma);
    QFETCH(int, length);
    const int B = 2, C = 3, half = (window - 1) / 2;
    auto kernel = gaussianKernel(window, sigma);
    auto x = torch::randn({B, length, C}, torch::requires_grad());
    auto out = blurAlongSequence(x, kernel);
    QCOMPARE(out.sizes().vec(), x.sizes().vec());
    const auto xd = x.detach().to(torch::kFloat64).contiguous();
    const auto kd = kernel.to(torch::kFloat64).contiguous();
    auto xa = xd.accessor<double, 3>();
    auto ka = kd.accessor<double, 1>();
    auto clamp = [&](int t) { return std::min(std::max(t, 0), length - 1); };
    double err = 0;
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < length; ++t)
        for (int c = 0; c < C; ++c) {
          double s = 0;
          for (int m = 0; m < window; ++m) s += ka[m] * xa[b][clamp(t + m - half)][c];
          err = std::max(err, std::abs(out[b][t][c].item<double>() - s));
        }
    QVERIFY2(err < 1e-5, qPrintable(QString::number(err)));
    // d sum(out) / d x[s] = total kernel weight that lands on token s.
    out.sum().backward();
    std::vector<double> landed(length, 0.0);
    for (int t = 0; t < length; ++t)
      for (int m = 0; m < window; ++m) landed[clamp(t + m - half)] += ka[m];
    for (int t = 0; t < length; ++t)
      QVERIFY(std::abs(x.grad()[1][t][2].item<double>() - landed[t]) < 1e-5);
  }

  // --- SesameBERT: squeeze and excitation over layers ---------------------------------

  void squeezeExcitationShapes() {
    LayerSqueezeExcitation se(6, 3, 0.8);
    auto p = se->named_parameters();
    QCOMPARE(p["fc1.weight"].sizes().vec(), std::vector<int64_t>({2, 6}));
    QCOMPARE(p["fc2.weight"].sizes().vec(), std::vector<int64_t>({6, 2}));
    LayerSqueezeExcitation tiny(2, 3, 0.8);  // L / r = 0 -> one unit
    QCOMPARE(tiny->named_parameters()["fc1.weight"].sizes().vec(), std::vector<int64_t>({1, 2}));
    std::vector<torch::Tensor> layers;
    for (int l = 0; l < 6; ++l) layers.push_back(torch::randn({3, 5, 4}) * 3);
    auto s = se->forward(layers, torch::ones({3, 5}, torch::kBool));
    QCOMPARE(s.sizes().vec(), std::vector<int64_t>({3, 6}));
    QVERIFY(s.gt(0).all().item<bool>() && s.lt(1).all().item<bool>());
    layers.pop_back();
    QVERIFY(throwsTorchError([&] { se->forward(layers, torch::ones({3, 5}, torch::kBool)); }));
  }

  void squeezeExcitationMatchesLoopsAndIgnoresPadding() {
    const int L = 4, B = 2, T = 5, H = 3;
    LayerSqueezeExcitation se(L, 2, 0.8);
    se->resetParameters(0.5);  // larger weights, so s is not just sigmoid(0.8)
    std::vector<torch::Tensor> layers;
    for (int l = 0; l < L; ++l) layers.push_back(torch::randn({B, T, H}) + l);
    auto mask =
        torch::tensor({1, 1, 1, 0, 0, 1, 1, 1, 1, 1}, torch::kLong).view({B, T}).to(torch::kBool);
    auto s = se->forward(layers, mask).to(torch::kFloat64);
    // Independent: z by loops over real tokens, then the two dense layers written out.
    const auto w1 = param(*se, "fc1.weight"), b1 = param(*se, "fc1.bias");
    const auto w2 = param(*se, "fc2.weight"), b2 = param(*se, "fc2.bias");
    const int hidden = int(w1.size(0));
    QCOMPARE(hidden, 2);
    double err = 0;
    for (int b = 0; b < B; ++b) {
      std::vector<double> z(L, 0.0);
      for (int l = 0; l < L; ++l) {
        const auto u = layers[l].to(torch::kFloat64);
        int n = 0;
        for (int t = 0; t < T; ++t) {
          if (!mask[b][t].item<bool>()) continue;
          ++n;
          for (int c = 0; c < H; ++c) z[l] += u[b][t][c].item<double>();
        }
        z[l] /= n * H;
      }
      std::vector<double> hdn(hidden);
      for (int o = 0; o < hidden; ++o) {
        double a = b1[o].item<double>();
        for (int l = 0; l < L; ++l) a += w1[o][l].item<double>() * z[l];
        hdn[o] = std::max(0.0, a);
      }
      for (int l = 0; l < L; ++l) {
        double a = b2[l].item<double>();
        for (int o = 0; o < hidden; ++o) a += w2[l][o].item<double>() * hdn[o];
        err = std::max(err, std::abs(s[b][l].item<double>() - sigmoid(a)));
      }
    }
    QVERIFY2(err < 1e-5, qPrintable(QString::number(err)));
    // Padded tokens (row 0, t = 3, 4) can hold anything without changing s.
    std::vector<torch::Tensor> changed;
    for (const auto& u : layers) {
      auto v = u.clone();
      v[0].slice(0, 3, 5).normal_(50.0, 20.0);
      changed.push_back(v);
    }
    QVERIFY(torch::equal(se->forward(changed, mask), se->forward(layers, mask)));
    // ...while a real token does change it.
    changed[1][0][1] += 5.0;
    QVERIFY(!torch::equal(se->forward(changed, mask), se->forward(layers, mask)));
  }

  void squeezeExcitationInitialisation() {
    LayerSqueezeExcitation se(24, 1, 0.8);
    auto p = se->named_parameters();
    {
      torch::NoGradGuard g;
      for (auto& t : p) t.value().zero_();
    }
    se->resetParameters(0.05);
    QVERIFY(p["fc1.bias"].eq(0.8f).all().item<bool>());
    QVERIFY(p["fc2.bias"].eq(0.8f).all().item<bool>());
    const double s1 = p["fc1.weight"].std().item<double>();
    QVERIFY2(std::abs(s1 / 0.05 - 1) < 0.1, qPrintable(QString::number(s1)));
    const double s2 = p["fc2.weight"].std().item<double>();
    QVERIFY2(std::abs(s2 / 0.05 - 1) < 0.1, qPrintable(QString::number(s2)));
  }

  void combineByHand() {
    // U_l = l + 1 everywhere; s = [[0.5, 0.25, 0.25], [1, 0, 1]].
    std::vector<torch::Tensor> layers;
    for (int l = 0; l < 3; ++l) layers.push_back(torch::full({2, 2, 2}, double(l + 1)));
    auto s = torch::tensor({0.5, 0.25, 0.25, 1.0, 0.0, 1.0}).view({2, 3}).to(torch::kFloat32);
    auto avg = LayerSqueezeExcitationImpl::combine(layers, s, true);
    auto last = LayerSqueezeExcitationImpl::combine(layers, s, false);
    QCOMPARE(avg.sizes().vec(), std::vector<int64_t>({2, 2, 2}));
    // (0.5*1 + 0.25*2 + 0.25*3) / 1 = 1.75; (1*1 + 0*2 + 1*3) / 2 = 2.
    QVERIFY(avg[0].eq(1.75f).all().item<bool>());
    QVERIFY(avg[1].eq(2.0f).all().item<bool>());
    // s_L * U_L: 0.25 * 3 and 1 * 3.
    QVERIFY(last[0].eq(0.75f).all().item<bool>());
    QVERIFY(last[1].eq(3.0f).all().item<bool>());
  }

  void combineMatchesLoops() {
    const int L = 3, B = 2, T = 3, H = 2;
    std::vector<torch::Tensor> layers;
    for (int l = 0; l < L; ++l) layers.push_back(torch::randn({B, T, H}));
    auto s = torch::rand({B, L}) * 0.9 + 0.05;
    auto avg = LayerSqueezeExcitationImpl::combine(layers, s, true);
    auto last = LayerSqueezeExcitationImpl::combine(layers, s, false);
    double err = 0;
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < T; ++t)
        for (int c = 0; c < H; ++c) {
          double num = 0, den = 0;
          for (int l = 0; l < L; ++l) {
            num += s[b][l].item<double>() * layers[l][b][t][c].item<double>();
            den += s[b][l].item<double>();
          }
          err = std::max(err, std::abs(avg[b][t][c].item<double>() - num / den));
          const double scaled = s[b][L - 1].item<double>() * layers[L - 1][b][t][c].item<double>();
          err = std::max(err, std::abs(last[b][t][c].item<double>() - scaled));
        }
    QVERIFY2(err < 1e-6, qPrintable(QString::number(err)));
  }

  void squeezeExcitationGradients() {
    LayerSqueezeExcitation se(4, 2, 0.8);
    std::vector<torch::Tensor> layers;
    for (int l = 0; l < 4; ++l) layers.push_back(torch::randn({2, 3, 5}, torch::requires_grad()));
    auto mask = torch::ones({2, 3}, torch::kBool);
    auto s = se->forward(layers, mask);
    LayerSqueezeExcitationImpl::combine(layers, s, true).pow(2).sum().backward();
    for (const auto& p : se->named_parameters()) {
      QVERIFY2(p.value().grad().defined(), p.key().c_str());
      QVERIFY2(p.value().grad().abs().sum().item<double>() > 0, p.key().c_str());
    }
    for (const auto& u : layers) QVERIFY(u.grad().defined());
  }

  // --- ASA: the adversary -------------------------------------------------------------

  void gradientReversalIsIdentityWithNegatedGradient() {
    auto x = torch::randn({3, 4}, torch::requires_grad());
    auto c = torch::randn({3, 4});
    auto y = gradientReversal(x);
    QVERIFY(torch::equal(y, x));
    (y * c).sum().backward();
    QVERIFY(torch::equal(x.grad(), -c));
  }

  void adversaryMaskMatchesScores() {
    const int B = 2, T = 6, H = 8;
    AttentionAdversary adversary(H);
    auto x = torch::randn({B, T, H});
    auto mask = torch::tensor({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, torch::kLong)
                    .view({B, T})
                    .to(torch::kBool);
    auto m = adversary->forward(x, mask);
    QCOMPARE(m.sizes().vec(), std::vector<int64_t>({B, T, T}));
    QVERIFY(m.eq(0).logical_or(m.eq(1)).all().item<bool>());
    QVERIFY(m[1].slice(1, 4, 6).eq(0).all().item<bool>());  // padding keys
    const std::vector<std::vector<bool>> keep = {{true, true, true, true, true, true},
                                                 {true, true, true, true, false, false}};
    const auto s = adversaryScores(*adversary, x.to(torch::kFloat64), keep);
    int ones = 0, zeros = 0, mismatches = 0;
    for (int b = 0; b < B; ++b)
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) {
          if (std::abs(s[b][i][j]) < 1e-4) continue;  // too close to the step to compare
          const double expected = s[b][i][j] > 0 ? 1.0 : 0.0;
          if (keep[b][j]) (expected == 1 ? ones : zeros) += 1;
          if (m[b][i][j].item<double>() != expected) ++mismatches;
        }
    QCOMPARE(mismatches, 0);
    QVERIFY(ones > 0 && zeros > 0);  // both outcomes among the real keys

    auto bias = adversarialMaskBias(m);
    QCOMPARE(bias.sizes().vec(), std::vector<int64_t>({B, 1, T, T}));
    QVERIFY(torch::equal(bias.squeeze(1), (1 - m) * -10000.0));
    auto byHand = adversarialMaskBias(torch::tensor({1.0f, 0.0f, 0.0f, 1.0f}).view({1, 2, 2}));
    QCOMPARE(byHand[0][0][0][1].item<double>(), -10000.0);
    QCOMPARE(byHand[0][0][1][0].item<double>(), -10000.0);
    QCOMPARE(byHand[0][0][0][0].item<double>(), 0.0);
  }

  void adversaryGradientIsReversedStraightThrough() {
    const int B = 2, T = 5, H = 6;
    AttentionAdversary adversary(H);
    {
      torch::NoGradGuard g;
      for (auto& p : adversary->parameters()) p.normal_(0.0, 0.3);  // moderate |S|
    }
    auto x = torch::randn({B, T, H}, torch::requires_grad());
    auto mask =
        torch::tensor({1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, torch::kLong).view({B, T}).to(torch::kBool);
    auto c = torch::randn({B, T, T});
    auto q = (adversary->forward(x, mask) * c).sum();
    q.backward();
    QVERIFY(!x.grad().defined());  // the input is detached
    auto named = adversary->named_parameters();
    std::map<std::string, torch::Tensor> reversed;
    for (const auto& p : named) {
      QVERIFY2(p.value().grad().defined(), p.key().c_str());
      reversed[p.key()] = p.value().grad().clone();
      p.value().mutable_grad() = torch::Tensor();
    }

    // The same loss through an identity instead of the reversal, written out here: the
    // gradient must be exactly the negation (up to float rounding of separate kernels).
    {
      auto xd = x.detach();
      auto qq = torch::matmul(xd, named["query.weight"].t()) + named["query.bias"];
      auto kk = torch::matmul(xd, named["key.weight"].t()) + named["key.bias"];
      auto keepKeys = mask.to(torch::kFloat32).view({B, 1, T});
      auto s =
          torch::matmul(qq, kk.transpose(1, 2)) / std::sqrt(double(H)) + (1 - keepKeys) * -10000.0;
      auto soft = torch::sigmoid(s);
      auto m = (s.detach().gt(0).to(torch::kFloat32) + soft - soft.detach()) * keepKeys;
      (m * c).sum().backward();
    }
    for (const auto& p : named) {
      const auto plain = p.value().grad();
      const auto& rev = reversed[p.key()];
      QVERIFY2(plain.abs().sum().item<double>() > 0, p.key().c_str());
      const double scale = plain.abs().max().item<double>();
      QVERIFY2(maxAbsDiff(rev, -plain) < 1e-5 * scale, p.key().c_str());
      // Opposite signs wherever the gradient is not negligible.
      QVERIFY((rev * plain).le(0).all().item<bool>());
    }

    // The straight-through estimator passes sigmoid'(S): for the query bias,
    //   d q / d bq = -sum_{b,i,j} c[b,i,j] keep[j] sigma'(S_bij) k_bj / sqrt(H)
    // (the minus from the reversal), by loops in double from the module's own weights.
    const std::vector<std::vector<bool>> keep = {{true, true, true, true, true},
                                                 {true, true, true, false, false}};
    const auto xd = x.detach().to(torch::kFloat64);
    const auto s = adversaryScores(*adversary, xd, keep);
    const auto wk = param(*adversary, "key.weight"), bk = param(*adversary, "key.bias");
    const auto wq = param(*adversary, "query.weight"), bq = param(*adversary, "query.bias");
    const auto keys = torch::matmul(xd, wk.t()) + bk;
    const auto queries = torch::matmul(xd, wq.t()) + bq;
    std::vector<double> gradBq(H, 0.0), gradBk(H, 0.0);
    for (int b = 0; b < B; ++b)
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) {
          if (!keep[b][j]) continue;
          const double sg = sigmoid(s[b][i][j]);
          const double upstream = -c[b][i][j].item<double>() * sg * (1 - sg) / std::sqrt(H);
          for (int o = 0; o < H; ++o) {
            gradBq[o] += upstream * keys[b][j][o].item<double>();
            gradBk[o] += upstream * queries[b][i][o].item<double>();
          }
        }
    for (int o = 0; o < H; ++o) {
      QVERIFY(std::abs(reversed["query.bias"][o].item<double>() - gradBq[o]) < 1e-5);
      QVERIFY(std::abs(reversed["key.bias"][o].item<double>() - gradBk[o]) < 1e-5);
    }
  }

  void adversaryGumbelMode() {
    const int B = 2, T = 16, H = 8;
    AttentionAdversary adversary(H);
    auto x = torch::randn({B, T, H});
    auto mask = torch::ones({B, T}, torch::kBool);
    mask[1].slice(0, 12, 16).fill_(false);
    AdversaryOptions options;
    options.gumbel = true;
    options.temperature = 0.5;
    torch::manual_seed(3);
    auto a = adversary->forward(x, mask, options);
    auto b = adversary->forward(x, mask, options);
    torch::manual_seed(3);
    auto again = adversary->forward(x, mask, options);
    for (const auto& m : {a, b}) {
      QVERIFY(m.eq(0).logical_or(m.eq(1)).all().item<bool>());
      QVERIFY(m[1].slice(1, 12, 16).eq(0).all().item<bool>());
    }
    QVERIFY(!torch::equal(a, b));     // the noise moved on with the generator
    QVERIFY(torch::equal(a, again));  // and is reproducible from its seed
    // The step mode, for contrast, is deterministic.
    QVERIFY(torch::equal(adversary->forward(x, mask), adversary->forward(x, mask)));
    (a * torch::randn({B, T, T})).sum().backward();
    for (const auto& p : adversary->named_parameters()) {
      QVERIFY2(p.value().grad().defined(), p.key().c_str());
      QVERIFY2(torch::isfinite(p.value().grad()).all().item<bool>(), p.key().c_str());
      QVERIFY2(p.value().grad().abs().sum().item<double>() > 0, p.key().c_str());
    }
  }
};

QTEST_APPLESS_MAIN(TestVariantModules)
#include "test_variant_modules.moc"
