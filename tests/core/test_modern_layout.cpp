// ModernBERT's parts in the engine (issue 43): rotary positions against the rotation written
// out pair by pair, the window's band (weights outside it exactly 0, in the explicit and the
// fused path alike), GeGLU and bias-free layers' parameters, layer 0 without its attention
// norm, and the configuration rules that refuse what does not compose. The golden test
// (test_golden_pytorch.cpp) checks the same parts against an independent PyTorch model.
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/model/attention_window.h"
#include "core/model/masked_lm.h"
#include "core/model/rotary_positions.h"
#include "core/runtime/torch_compat.h"
#include "tests/support/tensor_checks.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <string>

using namespace attnlab::core;
using attnlab::ConfigError;
using attnlab::tests::maxAbsDiff;

namespace {

constexpr int kVocab = 40;
constexpr int kLength = 12;
constexpr int kPad = 0;

ModelConfig modernModel(bool fused) {
  ModelConfig c;
  c.layers = 3;
  c.hiddenSize = 16;
  c.heads = 2;
  c.ffnSize = 24;
  c.dropout = 0.0;
  c.attentionDropout = 0.0;
  c.maxPositions = 16;
  c.norm = NormPlacement::Pre;
  c.firstAttentionNorm = false;
  c.positionEmbeddings = false;
  c.position = PositionEncoding::Rope;
  c.ropeTheta = 160.0;
  c.ropeThetaLocal = 10.0;
  c.attentionWindow = 4;  // keys at most 2 positions away in layers 1 and 2
  c.globalEvery = 3;
  c.feedForward = FeedForward::Geglu;
  c.bias = false;
  c.layerNormEps = 1e-5;
  c.fusedAttention = fused;
  return c;
}

struct Batch {
  torch::Tensor ids, keep, labels;
};

Batch makeBatch() {
  torch::manual_seed(5);
  Batch b;
  b.ids = torch::randint(3, kVocab, {3, kLength}, torch::kLong);
  b.keep = torch::ones({3, kLength}, torch::kBool);
  b.keep.index_put_({2, torch::indexing::Slice(8, kLength)}, false);
  b.ids.masked_fill_(b.keep.logical_not(), kPad);
  b.labels = torch::full({3, kLength}, -100, torch::kLong);
  for (int r = 0; r < 3; ++r)
    for (int t : {1, 5, 7}) b.labels.index_put_({r, t}, (r * 5 + t) % kVocab);
  return b;
}

/// The rotation of RoFormer written pair by pair in double: (x_i, x_(i+d/2)) at position t
/// turned by t * theta^(-2i/d).
torch::Tensor rotateByLoops(const torch::Tensor& x, double theta) {
  auto out = x.clone();
  const auto T = x.size(2), d = x.size(3), half = d / 2;
  auto xa = x.accessor<double, 4>();
  auto oa = out.accessor<double, 4>();
  for (int64_t b = 0; b < x.size(0); ++b)
    for (int64_t h = 0; h < x.size(1); ++h)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < half; ++i) {
          const double angle = double(t) * std::pow(theta, -2.0 * double(i) / double(d));
          const double a = xa[b][h][t][i], c = xa[b][h][t][i + half];
          oa[b][h][t][i] = a * std::cos(angle) - c * std::sin(angle);
          oa[b][h][t][i + half] = a * std::sin(angle) + c * std::cos(angle);
        }
  return out;
}

}  // namespace

class TestModernLayout : public QObject {
  Q_OBJECT
 private slots:
  void rotaryMatchesThePairwiseRotation() {
    torch::manual_seed(1);
    const auto q = torch::randn({2, 3, 9, 8}, torch::kDouble);
    const auto k = torch::randn({2, 3, 9, 8}, torch::kDouble);
    const auto [rq, rk] = RotaryPositions(8, 50.0).apply(q, k);
    QVERIFY(maxAbsDiff(rq, rotateByLoops(q, 50.0)) < 1e-12);
    QVERIFY(maxAbsDiff(rk, rotateByLoops(k, 50.0)) < 1e-12);
    // float32 tensors get float32 angles (transformers' convention): equal to 1e-5.
    const auto [fq, fk] = RotaryPositions(8, 50.0).apply(q.to(torch::kFloat), k.to(torch::kFloat));
    QCOMPARE(fq.scalar_type(), torch::kFloat);
    QVERIFY(maxAbsDiff(fq.to(torch::kDouble), rq) < 1e-5);
  }

  void rotaryScoresDependOnTheOffsetOnly() {
    // The same vector at every position: q_i . k_j then depends on i - j alone.
    torch::manual_seed(2);
    const auto q = torch::randn({1, 1, 1, 8}, torch::kDouble).expand({1, 1, 10, 8}).contiguous();
    const auto k = torch::randn({1, 1, 1, 8}, torch::kDouble).expand({1, 1, 10, 8}).contiguous();
    const auto [rq, rk] = RotaryPositions(8, 10000.0).apply(q, k);
    const auto scores = torch::matmul(rq, rk.transpose(-2, -1))[0][0];
    for (int offset = -3; offset <= 3; ++offset) {
      const double first = scores[4][4 + offset].item<double>();
      for (int i = 3; i < 6; ++i)
        QVERIFY(std::abs(scores[i][i + offset].item<double>() - first) < 1e-12);
    }
  }

  void windowBiasIsTheBand() {
    const auto bias = windowBias(7, 4, torch::kFloat, torch::kCPU)[0][0];
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 7; ++j)
        QCOMPARE(bias[i][j].item<float>(), std::abs(i - j) <= 2 ? 0.0f : float(kMaskedLogit));
    ModelConfig c;
    c.attentionWindow = 128;
    c.globalEvery = 3;
    QVERIFY(!isWindowedLayer(c, 0) && isWindowedLayer(c, 1) && isWindowedLayer(c, 2));
    QVERIFY(!isWindowedLayer(c, 3));
    c.attentionWindow = 0;
    QVERIFY(!isWindowedLayer(c, 1));
  }

  void windowedLayersGiveExactlyZeroOutsideTheBand() {
    MaskedLanguageModel model(modernModel(false), kVocab, kPad);
    model->eval();
    const auto batch = makeBatch();
    HookRequest request;
    request.capture("blocks.*.attn.probs");
    HookSession session(request);
    torch::NoGradGuard noGrad;
    model->encode(batch.ids, batch.keep, &session);
    const auto& cache = session.cache();
    const auto positions = torch::arange(kLength);
    // Real queries only: a padding position's row has every key masked (by the band or as
    // padding) and is uniform, as in BERT; no analysis reads it.
    const auto band = (positions.unsqueeze(1) - positions.unsqueeze(0)).abs().gt(2);  // [T, T]
    const auto outside =
        band.view({1, 1, kLength, kLength}) & batch.keep.view({3, 1, kLength, 1});  // [B, 1, T, T]
    for (int layer : {1, 2}) {
      const auto probs = cache.at("blocks." + std::to_string(layer) + ".attn.probs");
      QCOMPARE(probs.masked_select(outside.expand_as(probs)).abs().max().item<float>(), 0.0f);
      QVERIFY(maxAbsDiff(probs.sum(-1), torch::ones_like(probs.sum(-1))) < 1e-5);
    }
    const auto global = cache.at("blocks.0.attn.probs");
    QVERIFY(global.masked_select(outside.expand_as(global)).max().item<float>() > 1e-4f);
  }

  void fusedPathMatchesExplicit() {
    MaskedLanguageModel fused(modernModel(true), kVocab, kPad);
    MaskedLanguageModel plain(modernModel(false), kVocab, kPad);
    fused->resetParameters(0.2);
    {
      torch::NoGradGuard noGrad;
      auto source = fused->named_parameters();
      for (auto& p : plain->named_parameters()) p.value().copy_(source[p.key()]);
    }
    const auto batch = makeBatch();
    const auto before = torch_compat::fusedAttentionCalls();
    const auto a = fused->forward(batch.ids, batch.keep, batch.labels);
    a.loss.backward();
    const auto fusedCalls = torch_compat::fusedAttentionCalls() - before;
    const auto b = plain->forward(batch.ids, batch.keep, batch.labels);
    b.loss.backward();
    QCOMPARE(fusedCalls, torch_compat::hasFusedAttention() ? std::uint64_t{3} : std::uint64_t{0});
    QVERIFY(maxAbsDiff(a.loss, b.loss) < 1e-5);
    auto grads = plain->named_parameters();
    for (const auto& p : fused->named_parameters())
      QVERIFY2(maxAbsDiff(p.value().grad(), grads[p.key()].grad()) < 1e-4, p.key().c_str());
  }

  void parametersFollowTheLayout() {
    MaskedLanguageModel model(modernModel(false), kVocab, kPad);
    const auto params = model->named_parameters();
    for (const auto& p : params) {
      const std::string& name = p.key();
      QVERIFY2(name.size() < 5 || name.compare(name.size() - 5, 5, ".bias") != 0, name.c_str());
    }
    QVERIFY(params.contains("mlm_bias"));  // the decoder keeps its bias (ModernBERT too)
    QVERIFY(!params.contains("position_embedding.weight"));
    QVERIFY(!params.contains("layers.0.attention_norm.weight"));
    QVERIFY(params.contains("layers.1.attention_norm.weight"));
    QVERIFY(params.contains("final_norm.weight"));
    QCOMPARE(params["layers.0.ffn_in.weight"].sizes().vec(), (std::vector<int64_t>{48, 16}));
    QCOMPARE(params["layers.0.ffn_out.weight"].sizes().vec(), (std::vector<int64_t>{16, 24}));
  }

  void rulesRefuseWhatDoesNotCompose_data() {
    QTest::addColumn<QString>("overrides");
    QTest::addColumn<QString>("named");
    QTest::newRow("rope with the table") << "model.position=rope"
                                         << "model.position_embeddings";
    QTest::newRow("rope with differential")
        << "model.position=rope;model.position_embeddings=false;attention.differential=true"
        << "attention.differential";
    QTest::newRow("window with conv") << "model.attention_window=8;attention.conv=2d"
                                      << "attention.conv";
    QTest::newRow("no first norm in post-LN") << "model.first_attention_norm=false"
                                              << "model.norm";
    QTest::newRow("rope with an odd head") << "model.position=rope;model.position_embeddings="
                                              "false;model.hidden_size=6;model.heads=2"
                                           << "is odd";
  }

  void rulesRefuseWhatDoesNotCompose() {
    QFETCH(QString, overrides);
    QFETCH(QString, named);
    std::vector<std::string> sets;
    for (const auto& s : overrides.split(';')) sets.push_back(s.toStdString());
    try {
      parseRunConfig("", "test", sets);
      QFAIL("accepted");
    } catch (const ConfigError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains(named), e.what());
    }
  }

  void presetLoadsAndTrainsAStep() {
    const auto config =
        loadRunConfig(std::string(ATTNLAB_SOURCE_DIR) + "/resources/configs/modernbert-tiny.toml");
    QCOMPARE(config.model.position, PositionEncoding::Rope);
    QCOMPARE(config.model.attentionWindow, 32);
    MaskedLanguageModel model(config.model, config.attention, config.data.sequenceLength, 100, 0);
    const auto batch = makeBatch();
    const auto out = model->forward(batch.ids, batch.keep, batch.labels);
    out.loss.backward();
    QVERIFY(std::isfinite(out.loss.item<double>()));
  }
};

QTEST_GUILESS_MAIN(TestModernLayout)
#include "test_modern_layout.moc"
