// The encoder against computations written independently in this file: one layer by
// hand (per head, explicit softmax, in double), padding invariance, tied weights, init.
#include "core/config/run_config.h"
#include "core/model/fast_dropout.h"
#include "core/model/masked_lm.h"
#include "core/model/qkv_split.h"

#include <torch/torch.h>

#include <QtTest>

using namespace attnlab::core;

namespace {

ModelConfig smallConfig(NormPlacement norm) {
  ModelConfig c;
  c.layers = 2;
  c.hiddenSize = 16;
  c.heads = 4;
  c.ffnSize = 32;
  c.dropout = 0.0;
  c.attentionDropout = 0.0;
  c.norm = norm;
  c.maxPositions = 32;
  return c;
}

torch::Tensor param(torch::nn::Module& m, const std::string& name) {
  return m.named_parameters()[name].detach().to(torch::kFloat64);
}

torch::Tensor layerNorm(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                        double eps) {
  auto mean = x.mean(-1, true);
  auto var = (x - mean).pow(2).mean(-1, true);
  return (x - mean) / (var + eps).sqrt() * w + b;
}

torch::Tensor geluErf(const torch::Tensor& x) {
  return 0.5 * x * (1.0 + torch::erf(x / std::sqrt(2.0)));
}

// One encoder layer for a single sequence [T, H], by the textbook formulas, with every
// head computed separately and the softmax written out.
torch::Tensor referenceLayer(torch::nn::Module& layer, const torch::Tensor& x,
                             const std::vector<bool>& keep, const ModelConfig& c) {
  const int H = c.hiddenSize, heads = c.heads, d = H / heads;
  const auto T = x.size(0);
  auto lin = [&](const torch::Tensor& in, const std::string& name) {
    return torch::matmul(in, param(layer, name + ".weight").t()) + param(layer, name + ".bias");
  };
  auto attention = [&](const torch::Tensor& in) {
    auto qkv = lin(in, "attention.qkv");
    auto q = qkv.slice(1, 0, H), k = qkv.slice(1, H, 2 * H), v = qkv.slice(1, 2 * H, 3 * H);
    std::vector<torch::Tensor> outs;
    for (int h = 0; h < heads; ++h) {
      auto qh = q.slice(1, h * d, (h + 1) * d), kh = k.slice(1, h * d, (h + 1) * d),
           vh = v.slice(1, h * d, (h + 1) * d);
      auto out = torch::zeros({T, d}, torch::kFloat64);
      for (int64_t i = 0; i < T; ++i) {
        std::vector<double> e(T);
        double z = 0;
        for (int64_t j = 0; j < T; ++j) {
          const double s = (qh[i] * kh[j]).sum().item<double>() / std::sqrt(double(d));
          e[j] = keep[j] ? std::exp(s) : 0.0;
          z += e[j];
        }
        for (int64_t j = 0; j < T; ++j) out[i] += (e[j] / z) * vh[j];
      }
      outs.push_back(out);
    }
    return lin(torch::cat(outs, 1), "attention.output");
  };
  auto ffn = [&](const torch::Tensor& in) { return lin(geluErf(lin(in, "ffn_in")), "ffn_out"); };
  auto ln = [&](const torch::Tensor& in, const std::string& name) {
    return layerNorm(in, param(layer, name + ".weight"), param(layer, name + ".bias"),
                     c.layerNormEps);
  };
  if (c.norm == NormPlacement::Pre) {
    auto h = x + attention(ln(x, "attention_norm"));
    return h + ffn(ln(h, "ffn_norm"));
  }
  auto h = ln(x + attention(x), "attention_norm");
  return ln(h + ffn(h), "ffn_norm");
}

}  // namespace

class TestModel : public QObject {
  Q_OBJECT
 private slots:
  void qkvSplitMatchesAutogradThroughUnbind() {
    // splitQkv's hand-written backward against LibTorch's own autograd through view,
    // permute and unbind: the same q, k, v and, bitwise, the same gradient of the
    // projection, also when one part does not reach the loss.
    const std::int64_t batch = 2, length = 5, heads = 3, headSize = 4;
    torch::manual_seed(9);
    const auto source = torch::randn({batch * length, 3 * heads * headSize});
    const auto weights = torch::randn({3, batch, heads, length, headSize});
    for (const bool useK : {true, false}) {
      auto a = source.clone().requires_grad_(true);
      auto b = source.clone().requires_grad_(true);
      const auto ours = splitQkv(a, batch, length, heads);
      const auto theirs =
          b.view({batch, length, 3, heads, headSize}).permute({2, 0, 3, 1, 4}).unbind(0);
      auto lossA = (ours[0] * weights[0]).sum() + (ours[2] * weights[2]).sum();
      auto lossB = (theirs[0] * weights[0]).sum() + (theirs[2] * weights[2]).sum();
      if (useK) {
        lossA = lossA + (ours[1] * weights[1]).sum();
        lossB = lossB + (theirs[1] * weights[1]).sum();
      }
      for (int i = 0; i < 3; ++i) QVERIFY(torch::equal(ours[i], theirs[i]));
      lossA.backward();
      lossB.backward();
      QVERIFY2(torch::equal(a.grad(), b.grad()), useK ? "all parts used" : "k unused");
    }
  }

  void initTestCase() { torch::manual_seed(7); }

  void layerMatchesHandComputation_data() {
    QTest::addColumn<QString>("norm");
    QTest::newRow("post-LN (BERT)") << "post";
    QTest::newRow("pre-LN (GPT-2)") << "pre";
  }
  void layerMatchesHandComputation() {
    QFETCH(QString, norm);
    const auto c = smallConfig(*parseChoice<NormPlacement>(norm.toStdString()));
    EncoderLayer layer(c, AttentionConfig{}, 0, 8);
    // Non-trivial LayerNorm parameters so the check covers them.
    for (auto& p : layer->named_parameters()) {
      torch::NoGradGuard g;
      if (p.key().find("norm") != std::string::npos)
        p.value().uniform_(0.5, 1.5);
      else
        p.value().normal_(0.0, 0.3);
    }
    layer->eval();
    auto x = torch::randn({1, 5, 16});
    auto keepMask = torch::tensor({true, true, true, false, false}).unsqueeze(0);
    AttentionContext context;
    context.paddingBias = additiveAttentionMask(keepMask, torch::kFloat32);
    auto ours = layer->forward(x, context).squeeze(0);
    auto ref = referenceLayer(*layer, x.squeeze(0).to(torch::kFloat64),
                              {true, true, true, false, false}, c);
    const double err = (ours.to(torch::kFloat64) - ref).abs().max().item<double>();
    QVERIFY2(err < 1e-4, qPrintable(QString("max abs error %1").arg(err)));
  }

  void capturedAttentionIsADistributionIgnoringPadding() {
    MaskedLanguageModel model(smallConfig(NormPlacement::Post), 50, 0);
    model->eval();
    auto ids = torch::tensor({1, 7, 8, 9, 2, 0, 0}, torch::kLong).unsqueeze(0);
    auto mask = ids.ne(0);
    HookRequest request;
    request.capture("blocks.*.attn.probs").capture("blocks.*.attn.scores");
    HookSession hooks(request);
    model->encode(ids, mask, &hooks);
    const auto& cache = hooks.cache();
    QCOMPARE(int(cache.names().size()), 4);  // each of the 2 layers' probs and scores, once
    const auto probabilities = cache.layers("attn.probs", 2);
    QCOMPARE(int(probabilities.size()), 2);
    QCOMPARE(int(cache.layers("attn.scores", 2).size()), 2);
    for (const auto& p : probabilities) {
      QCOMPARE(p.sizes().vec(), std::vector<int64_t>({1, 4, 7, 7}));
      QVERIFY((p.sum(-1) - 1).abs().max().item<double>() < 1e-5);
      QVERIFY(p.slice(3, 5, 7).abs().max().item<double>() < 1e-12);  // padded keys
    }
  }

  void paddingDoesNotChangeRealPositions() {
    MaskedLanguageModel model(smallConfig(NormPlacement::Post), 50, 0);
    model->eval();
    auto shortIds = torch::tensor({1, 11, 12, 13, 2}, torch::kLong).unsqueeze(0);
    auto longIds = torch::tensor({1, 11, 12, 13, 2, 0, 0, 0}, torch::kLong).unsqueeze(0);
    auto a = model->encode(shortIds, shortIds.ne(0));
    auto b = model->encode(longIds, longIds.ne(0)).slice(1, 0, 5);
    QVERIFY((a - b).abs().max().item<double>() < 1e-5);
  }

  void outputLayerIsTiedToEmbeddings() {
    MaskedLanguageModel model(smallConfig(NormPlacement::Post), 50, 0);
    auto params = model->named_parameters();
    int matrices = 0;
    for (const auto& p : params) {
      if (p.value().dim() == 2 && p.value().size(0) == 50) ++matrices;
    }
    QCOMPARE(matrices, 1);  // only the token embedding has the vocabulary dimension
    auto rows = torch::randn({3, 16});
    auto before = model->logits(rows).detach();
    {
      torch::NoGradGuard g;
      // Random, not a constant: a constant row shift is invisible after LayerNorm (its
      // output sums to zero over features).
      params["token_embedding.weight"][17] += torch::randn({16});
    }
    auto after = model->logits(rows).detach();
    auto changed = (after - before).abs().gt(1e-6).any(0);
    QVERIFY(changed[17].item<bool>());
    QCOMPARE(changed.sum().item<int64_t>(), int64_t(1));
  }

  void bertInitialisation() {
    ModelConfig c = smallConfig(NormPlacement::Post);
    c.hiddenSize = 256;
    c.ffnSize = 1024;
    MaskedLanguageModel model(c, 500, 0);
    auto p = model->named_parameters();
    const double std = p["layers.0.ffn_in.weight"].std().item<double>();
    QVERIFY2(std::abs(std - 0.02) < 0.001, qPrintable(QString::number(std)));
    QCOMPARE(p["layers.0.ffn_in.bias"].abs().sum().item<double>(), 0.0);
    QCOMPARE(p["layers.1.attention_norm.weight"].mean().item<double>(), 1.0);
    QCOMPARE(p["token_embedding.weight"][0].abs().sum().item<double>(), 0.0);  // <pad> row
  }

  void mlmLossIsCrossEntropyOverSelectedPositions() {
    MaskedLanguageModel model(smallConfig(NormPlacement::Pre), 40, 0);
    model->eval();
    auto ids = torch::tensor({{1, 5, 3, 7, 2}, {1, 3, 9, 2, 0}}, torch::kLong);
    auto labels = torch::full({2, 5}, -100, torch::kLong);
    labels[0][2] = 6;
    labels[1][1] = 12;
    labels[1][2] = 9;
    auto out = model->forward(ids, ids.ne(0), labels);
    // Independent: logits for every position, then -log softmax at the selected ones.
    auto all = model->logits(model->encode(ids, ids.ne(0)).reshape({-1, 16})).to(torch::kFloat64);
    auto logZ = all.exp().sum(-1).log();
    double expected = 0;
    const std::vector<std::pair<int, int>> picks = {{2, 6}, {6, 12}, {7, 9}};
    for (auto [row, target] : picks) expected += (logZ[row] - all[row][target]).item<double>();
    expected /= 3;
    QVERIFY(std::abs(out.loss.item<double>() - expected) < 1e-5);
    QCOMPARE(out.predicted.item<int64_t>(), int64_t(3));
    QVERIFY(out.correct.item<int64_t>() >= 0 && out.correct.item<int64_t>() <= 3);
  }

  void dropoutMaskStatisticsAndDeterminism() {
    const double p = 0.1;
    auto like = torch::empty({1000, 1000});
    torch::manual_seed(5);
    auto a = dropoutMask(like, p);
    // Binomial(1e6, 0.1): sd = 300 zeros; 0.005 is more than 16 sd.
    const double zeros = a.eq(0).to(torch::kDouble).mean().item<double>();
    QVERIFY2(std::abs(zeros - p) < 0.005, qPrintable(QString::number(zeros)));
    QVERIFY(a.eq(0).logical_or(a.eq(float(1.0 / (1.0 - p)))).all().item<bool>());
    torch::manual_seed(5);
    const int threads = torch::get_num_threads();
    torch::set_num_threads(1);
    auto b = dropoutMask(like, p);  // same seed, other thread count: same mask
    torch::set_num_threads(threads);
    QVERIFY(torch::equal(a, b));
    auto c = dropoutMask(like, p);  // the generator moved on: a new mask
    QVERIFY(!torch::equal(a, c));
  }

  void dropoutModuleTrainsAndEvaluates() {
    FastDropout drop(0.5);
    auto x = torch::ones({64, 64}, torch::requires_grad());
    auto y = drop(x);
    QVERIFY(y.eq(0).any().item<bool>() && y.eq(2).any().item<bool>());
    y.sum().backward();
    QVERIFY(torch::equal(x.grad(), y.detach()));  // d/dx (x * mask) = mask
    drop->eval();
    QVERIFY(torch::equal(drop(x), x));
  }

  void gradientsReachEveryParameter() {
    MaskedLanguageModel model(smallConfig(NormPlacement::Post), 40, 0);
    auto ids = torch::randint(5, 40, {2, 9}, torch::kLong);
    auto labels = torch::where(torch::rand({2, 9}) < 0.5, ids, torch::full_like(ids, -100));
    labels[0][0] = ids[0][0];
    model->forward(ids, ids.ne(0), labels).loss.backward();
    for (const auto& p : model->named_parameters()) {
      QVERIFY2(p.value().grad().defined(), p.key().c_str());
      if (p.key().find("position") == std::string::npos)
        QVERIFY2(p.value().grad().abs().sum().item<double>() > 0, p.key().c_str());
    }
  }
};

QTEST_APPLESS_MAIN(TestModel)
#include "test_model.moc"
