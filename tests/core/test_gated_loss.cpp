// Head gates (Michel et al. 2019, section 4) on a small model in float64: all gates 1 leave
// the pass bitwise as it was; d loss / d gate against a central finite difference of the
// loss itself; a gate of 0 gives the loss of the model whose output projection has that
// head's input columns zeroed (the head contributes nothing); RealFormer's running sum
// still carries a masked head's scores; and bad shapes are refused.
#include "core/config/run_config.h"
#include "core/inspect/gated_loss.h"
#include "core/model/masked_lm.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>

using namespace attnlab::core;

namespace {

constexpr int kVocab = 30, kLength = 9, kBatch = 3, kPad = 0, kMask = 3;
constexpr int kLayers = 2, kHeads = 4, kHidden = 16;

ModelConfig smallConfig() {
  ModelConfig c;
  c.layers = kLayers;
  c.hiddenSize = kHidden;
  c.heads = kHeads;
  c.ffnSize = 32;
  c.dropout = 0.0;
  c.attentionDropout = 0.0;
  c.maxPositions = 32;
  return c;
}

MaskedLanguageModel doubleModel(const AttentionConfig& attention = {}) {
  torch::manual_seed(11);
  MaskedLanguageModel model(smallConfig(), attention, kLength, kVocab, kPad);
  model->resetParameters(0.3);  // larger than BERT's 0.02: gradients far from zero
  model->to(torch::kFloat64);
  model->eval();
  return model;
}

/// Three sequences, the last padded; positions 2, 5 (and 6 in the first) masked.
struct Batch {
  torch::Tensor ids, attentionMask;
  MaskedTargets masked;
};

Batch batch() {
  torch::manual_seed(5);
  auto ids = torch::randint(5, kVocab, {kBatch, kLength}, torch::kLong);
  ids.index_put_({2, torch::indexing::Slice(7, kLength)}, kPad);
  std::vector<std::int64_t> flat = {0 * kLength + 2, 0 * kLength + 5, 0 * kLength + 6,
                                    1 * kLength + 2, 1 * kLength + 5, 2 * kLength + 2};
  const auto positions = torch::tensor(flat, torch::kLong);
  const auto targets = ids.view({-1}).index_select(0, positions).clone();
  ids.view({-1}).index_fill_(0, positions, kMask);
  return {ids, ids.ne(kPad), {positions, targets}};
}

double lossOf(MaskedLanguageModelImpl& m, const Batch& b, const torch::Tensor& gates, int seq) {
  const auto out = gatedMlmLoss(m, b.ids, b.attentionMask, b.masked, gates, false);
  return seq < 0 ? out.lossSum : out.sequenceLoss[seq].item<double>();
}

/// Whether layer 1 still feels layer 0's query weights when every head of layer 0 is masked.
bool layerZeroQueriesMatterWhenMasked(ResidualScores residual) {
  AttentionConfig attention;
  attention.residual = residual;
  MaskedLanguageModel model = doubleModel(attention);
  const Batch b = batch();
  // Masking every head of layer 0 removes its output, yet layer 1 still reads layer 0's
  // scores through the running sum: unlike a model whose layer 0 attention does nothing,
  // the result depends on layer 0's query and key weights.
  auto gates = torch::ones({kLayers, kHeads}, torch::kFloat64);
  gates[0].fill_(0.0);
  const double before = lossOf(*model, b, gates, -1);
  {
    torch::NoGradGuard noGrad;
    model->named_parameters()["layers.0.attention.qkv.weight"].slice(0, 0, kHidden).mul_(3.0);
  }
  return std::abs(lossOf(*model, b, gates, -1) - before) > 1e-6;
}

}  // namespace

class TestGatedLoss : public QObject {
  Q_OBJECT
 private slots:
  void gatesOfOneLeaveThePassBitwise() {
    torch::manual_seed(3);
    MaskedLanguageModel model(smallConfig(), AttentionConfig{}, kLength, kVocab, kPad);
    model->eval();  // float32, the engine's precision
    const Batch b = batch();
    torch::NoGradGuard noGrad;
    // Gates of 1 on every head: a replacement hook on each layer's "blocks.{L}.attn.z"
    // multiplying each head's context by its gate, as gatedMlmLoss gates it.
    HookRequest request;
    for (int l = 0; l < kLayers; ++l) {
      const auto gate = torch::ones({kHeads});
      request.replace("blocks." + std::to_string(l) + ".attn.z",
                      [gate](const std::string&, const at::Tensor& z) {
                        return z * gate.to(z.scalar_type()).view({-1, kHeads, 1, 1});
                      });
    }
    HookSession hooks(request);
    ForwardOptions plain, gated;
    gated.hooks = &hooks;
    MlmOutput unused;
    const auto a = model->encodeWith(b.ids, b.attentionMask, plain, unused);
    const auto c = model->encodeWith(b.ids, b.attentionMask, gated, unused);
    QVERIFY(torch::equal(a, c));
    const auto ungated = gatedMlmLoss(*model, b.ids, b.attentionMask, b.masked, {}, false);
    const auto ones = gatedMlmLoss(*model, b.ids, b.attentionMask, b.masked,
                                   torch::ones({kLayers, kHeads}), true);
    QCOMPARE(ones.lossSum, ungated.lossSum);
    QVERIFY(torch::equal(ones.sequenceLoss, ungated.sequenceLoss));
    // The parameters got their flags back and no gradient.
    for (const auto& p : model->parameters()) {
      QVERIFY(p.requires_grad());
      QVERIFY(!p.grad().defined());
    }
  }

  void gradientMatchesCentralDifferences() {
    MaskedLanguageModel model = doubleModel();
    const Batch b = batch();
    const auto ones = torch::ones({kLayers, kHeads}, torch::kFloat64);
    const auto out = gatedMlmLoss(*model, b.ids, b.attentionMask, b.masked, ones, true);
    QCOMPARE(out.gateGradient.sizes(), (torch::IntArrayRef{kLayers, kBatch, kHeads}));
    const double eps = 1e-6;
    double largest = 0;
    for (int l = 0; l < kLayers; ++l)
      for (int h = 0; h < kHeads; ++h) {
        auto up = ones.clone(), down = ones.clone();
        up[l][h] += eps;
        down[l][h] -= eps;
        for (int s = 0; s < kBatch; ++s) {
          const double numeric =
              (lossOf(*model, b, up, s) - lossOf(*model, b, down, s)) / (2 * eps);
          const double analytic = out.gateGradient[l][s][h].item<double>();
          largest = std::max(largest, std::abs(analytic));
          QVERIFY2(std::abs(numeric - analytic) <= 1e-7 + 1e-6 * std::abs(numeric),
                   qPrintable(QString("layer %1 head %2 sequence %3: %4 vs %5")
                                  .arg(l)
                                  .arg(h)
                                  .arg(s)
                                  .arg(analytic)
                                  .arg(numeric)));
        }
      }
    QVERIFY(largest > 1e-3);  // the check is not vacuous
    // The per-sequence means: sequence 0 has three positions, 2 one.
    QCOMPARE(out.sequenceCount[0].item<std::int64_t>(), std::int64_t{3});
    QCOMPARE(out.sequenceCount[2].item<std::int64_t>(), std::int64_t{1});
    QVERIFY(std::abs(out.lossSum - (out.sequenceLoss * out.sequenceCount).sum().item<double>()) <
            1e-9);
  }

  void aMaskedHeadIsItsZeroedOutputColumns() {
    MaskedLanguageModel model = doubleModel();
    const Batch b = batch();
    const int layer = 1, head = 2, size = kHidden / kHeads;
    auto gates = torch::ones({kLayers, kHeads}, torch::kFloat64);
    gates[layer][head] = 0.0;
    const double masked = lossOf(*model, b, gates, -1);
    const double plain = lossOf(*model, b, {}, -1);
    {
      torch::NoGradGuard noGrad;
      auto w =
          model->named_parameters()["layers." + std::to_string(layer) + ".attention.output.weight"];
      w.slice(1, head * size, (head + 1) * size).zero_();
    }
    const double zeroed = lossOf(*model, b, {}, -1);
    QVERIFY2(std::abs(masked - zeroed) < 1e-12,
             qPrintable(QString("%1 vs %2").arg(masked).arg(zeroed)));
    QVERIFY(std::abs(masked - plain) > 1e-6);  // masking the head changed something
  }

  void realFormerStillCarriesAMaskedHeadsScores() {
    QVERIFY(!layerZeroQueriesMatterWhenMasked(ResidualScores::None));  // the control
    QVERIFY(layerZeroQueriesMatterWhenMasked(ResidualScores::Sum));
  }

  void badShapesAreRefused() {
    MaskedLanguageModel model = doubleModel();
    const Batch b = batch();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             gatedMlmLoss(*model, b.ids, b.attentionMask, b.masked,
                                          torch::ones({kLayers + 1, kHeads}), false));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             gatedMlmLoss(*model, b.ids, b.attentionMask, b.masked,
                                          torch::ones({kLayers, kHeads - 1}), false));
    MaskedTargets uneven{b.masked.positions, b.masked.targets.slice(0, 0, 2)};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             gatedMlmLoss(*model, b.ids, b.attentionMask, uneven, {}, false));
  }
};

QTEST_APPLESS_MAIN(TestGatedLoss)
#include "test_gated_loss.moc"
