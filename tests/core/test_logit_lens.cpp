// The logit lens against the MLM head written out in this file, in double, from the model's
// own parameters (dense, erf GELU, LayerNorm, the tied embedding matrix and the output bias;
// a Pre-LN model's final LayerNorm first): every layer's top tokens, the target's rank (by
// counting), the entropy and the KL to the output. The output row equals the model's own MLM
// prediction exactly; with SesameBERT's layer weights the output is one row more.
#include "core/config/run_config.h"
#include "core/inspect/logit_lens.h"
#include "core/model/masked_lm.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>

using namespace attnlab::core;

namespace {

constexpr int kVocab = 40, kLength = 7, kPad = 0;

ModelConfig smallConfig(NormPlacement norm) {
  ModelConfig c;
  c.layers = 3;
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

torch::Tensor layerNorm(const torch::Tensor& x, torch::nn::Module& m, const std::string& name,
                        double eps) {
  const auto mean = x.mean(-1, true);
  const auto var = (x - mean).pow(2).mean(-1, true);
  return (x - mean) / (var + eps).sqrt() * param(m, name + ".weight") + param(m, name + ".bias");
}

/// Log-probabilities [T, V] of the MLM head on one layer's output [T, H], by hand.
torch::Tensor referenceLens(torch::nn::Module& model, const torch::Tensor& layerOutput,
                            const ModelConfig& c) {
  auto x = layerOutput.to(torch::kFloat64);
  if (c.norm == NormPlacement::Pre) x = layerNorm(x, model, "final_norm", c.layerNormEps);
  auto h = torch::matmul(x, param(model, "mlm_transform.weight").t()) +
           param(model, "mlm_transform.bias");
  h = 0.5 * h * (1.0 + torch::erf(h / std::sqrt(2.0)));
  h = layerNorm(h, model, "mlm_norm", c.layerNormEps);
  const auto logits =
      torch::matmul(h, param(model, "token_embedding.weight").t()) + param(model, "mlm_bias");
  return torch::log_softmax(logits, -1);
}

struct Pass {
  LensInput input;
  torch::Tensor ids;
};

Pass run(MaskedLanguageModelImpl& model, bool combined) {
  Pass p;
  p.ids = torch::randint(5, kVocab, {1, kLength}, torch::kLong);
  HookRequest request;
  request.capture("blocks.*.resid_post");
  HookSession hooks(request);
  ForwardOptions options;
  options.hooks = &hooks;
  MlmOutput out;
  torch::NoGradGuard noGrad;
  const auto hidden = model.encodeWith(p.ids, p.ids.ne(kPad), options, out);
  p.input = LensInput{hooks.cache().layers("resid_post", model.layerCount()), hidden, combined};
  return p;
}

}  // namespace

class TestLogitLens : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { torch::manual_seed(5); }

  void everyLayerMatchesTheHeadByHand_data() {
    QTest::addColumn<QString>("norm");
    QTest::newRow("post-LN (BERT)") << "post";
    QTest::newRow("pre-LN (final LayerNorm first)") << "pre";
  }
  void everyLayerMatchesTheHeadByHand() {
    QFETCH(QString, norm);
    const auto c = smallConfig(*parseChoice<NormPlacement>(norm.toStdString()));
    MaskedLanguageModel model(c, kVocab, kPad);
    model->resetParameters(0.3);
    model->eval();
    const Pass pass = run(*model, false);
    const auto targets = pass.ids.squeeze(0);
    const LensPredictions lens = lensPredictions(*model, pass.input, targets, 5);
    QCOMPARE(lens.topIds.size(0), c.layers);
    QCOMPARE(lens.topIds.size(2), 5);
    for (int l = 0; l < c.layers; ++l) {
      const auto ref = referenceLens(*model, pass.input.layerOutputs[l].squeeze(0), c);
      const auto best = ref.argmax(-1);
      QVERIFY(torch::equal(lens.topIds[l].select(1, 0), best));
      const double pErr = (lens.topProbabilities[l].select(1, 0).to(torch::kFloat64) -
                           std::get<0>(ref.max(-1)).exp())
                              .abs()
                              .max()
                              .item<double>();
      QVERIFY2(pErr < 1e-5, qPrintable(QString::number(pErr)));
      for (int t = 0; t < kLength; ++t) {
        const double own = ref[t][targets[t].item<int64_t>()].item<double>();
        const auto above = ref[t].gt(own).sum().item<int64_t>();
        QCOMPARE(lens.targetRank[l][t].item<int64_t>(), above);
      }
    }
    // Statistics at chosen positions: entropy and KL to the output by hand.
    const auto positions = torch::tensor({1, 3, 6}, torch::kLong);
    const LensRows rows = lensAt(*model, pass.input, positions, targets.index_select(0, positions));
    const auto final = referenceLens(*model, pass.input.layerOutputs.back().squeeze(0), c)
                           .index_select(0, positions);
    for (int l = 0; l < c.layers; ++l) {
      const auto ref = referenceLens(*model, pass.input.layerOutputs[l].squeeze(0), c)
                           .index_select(0, positions);
      const auto entropy = -(ref.exp() * ref).sum(-1);
      const auto kl = (final.exp() * (final - ref)).sum(-1);
      QVERIFY((rows.entropy[l] - entropy).abs().max().item<double>() < 1e-5);
      QVERIFY((rows.klToFinal[l] - kl).abs().max().item<double>() < 1e-5);
    }
    QVERIFY(!rows.outputRow);
  }

  void theLastRowIsTheModelsOwnPrediction() {
    const auto c = smallConfig(NormPlacement::Post);
    MaskedLanguageModel model(c, kVocab, kPad);
    model->resetParameters(0.3);
    model->eval();
    const Pass pass = run(*model, false);
    const auto targets = pass.ids.squeeze(0);
    torch::NoGradGuard noGrad;
    const auto own = torch::softmax(model->logits(pass.input.finalHidden.squeeze(0)), -1);
    const LensPredictions lens = lensPredictions(*model, pass.input, targets, 3);
    const auto last = lens.topIds.size(0) - 1;
    const auto best = own.topk(3, -1);
    // The lens of the last layer is the model's own head on the model's own output: the
    // same logits, bitwise; its probabilities come through a float64 log-softmax.
    const auto lastLayer = pass.input.layerOutputs.back().squeeze(0);
    QVERIFY(torch::equal(model->lensLogits(lastLayer),
                         model->logits(pass.input.finalHidden.squeeze(0))));
    QVERIFY(torch::equal(lens.topIds[last], std::get<1>(best)));
    QVERIFY((lens.topProbabilities[last] - std::get<0>(best)).abs().max().item<double>() < 1e-6);
    const auto positions = torch::arange(kLength, torch::kLong);
    const LensRows rows = lensAt(*model, pass.input, positions, targets);
    QCOMPARE(rows.klToFinal[last].abs().max().item<double>(), 0.0);
  }

  void sesameBertsCombinationIsOneRowMore() {
    const auto c = smallConfig(NormPlacement::Post);
    AttentionConfig attention;
    attention.squeeze.enabled = true;
    attention.squeeze.ratio = 1;
    MaskedLanguageModel model(c, attention, kLength, kVocab, kPad);
    model->resetParameters(0.3);
    model->eval();
    QVERIFY(model->hasSqueezeExcitation());
    const Pass pass = run(*model, true);
    const auto targets = pass.ids.squeeze(0);
    const LensPredictions lens = lensPredictions(*model, pass.input, targets, 2);
    QCOMPARE(lens.topIds.size(0), c.layers + 1);
    QVERIFY(lens.outputRow);
    torch::NoGradGuard noGrad;
    const auto own = model->logits(pass.input.finalHidden.squeeze(0)).argmax(-1);
    QVERIFY(torch::equal(lens.topIds[c.layers].select(1, 0), own));
  }
};

QTEST_APPLESS_MAIN(TestLogitLens)
#include "test_logit_lens.moc"
