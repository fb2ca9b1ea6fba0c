// The fused attention path (LibTorch 2.x's scaled_dot_product_attention, docs/variants.md,
// "Fused attention") against the explicit one: for every mechanism combination that may
// take it, a model with model.fused_attention on and a copy with it off give the same MLM
// loss and the same gradient for every parameter within float32 tolerance, and the counter
// shows the fused kernel really ran. Combinations that need the probabilities never take it.
// With LibTorch 1.13 (no fused kernel) the fused model must take the explicit path.
#include "core/config/run_config.h"
#include "core/model/masked_lm.h"
#include "core/runtime/torch_compat.h"
#include "tests/support/tensor_checks.h"

#include <torch/torch.h>

#include <QtTest>

#include <functional>

using namespace attnlab::core;
using attnlab::tests::maxAbsDiff;

namespace {

constexpr int kVocab = 40;
constexpr int kLength = 12;
constexpr int kPad = 0;

ModelConfig tinyModel(bool fused) {
  ModelConfig c;
  c.layers = 2;
  c.hiddenSize = 16;
  c.heads = 2;
  c.ffnSize = 32;
  c.dropout = 0.0;
  c.attentionDropout = 0.0;
  c.maxPositions = 16;
  c.fusedAttention = fused;
  return c;
}

using AttentionSetup = std::function<void(AttentionConfig&)>;

struct Batch {
  torch::Tensor ids, keep, labels;
};

Batch makeBatch() {
  torch::manual_seed(11);
  Batch b;
  b.ids = torch::randint(3, kVocab, {3, kLength}, torch::kLong);
  b.keep = torch::ones({3, kLength}, torch::kBool);
  b.keep.index_put_({2, torch::indexing::Slice(8, kLength)}, false);  // padding in row 2
  b.ids.masked_fill_(b.keep.logical_not(), kPad);
  b.labels = torch::full({3, kLength}, -100, torch::kLong);
  for (int r = 0; r < 3; ++r)
    for (int t : {1, 4, 6}) b.labels.index_put_({r, t}, (r * 7 + t) % kVocab);
  return b;
}

/// Two models, fused and explicit, with the same parameters.
std::pair<MaskedLanguageModel, MaskedLanguageModel> twinModels(const AttentionSetup& setup,
                                                               double attentionDropout = 0.0) {
  AttentionConfig attention;
  setup(attention);
  auto fusedConfig = tinyModel(true);
  auto explicitConfig = tinyModel(false);
  fusedConfig.attentionDropout = explicitConfig.attentionDropout = attentionDropout;
  torch::manual_seed(5);
  MaskedLanguageModel fused(fusedConfig, attention, kLength, kVocab, kPad);
  fused->resetParameters(0.2);  // larger than BERT's 0.02, so attention is far from uniform
  MaskedLanguageModel plain(explicitConfig, attention, kLength, kVocab, kPad);
  torch::NoGradGuard noGrad;
  auto source = fused->named_parameters();
  for (auto& p : plain->named_parameters()) p.value().copy_(source[p.key()]);
  return {fused, plain};
}

struct PassResult {
  torch::Tensor loss;
  std::vector<std::pair<std::string, torch::Tensor>> grads;
  std::uint64_t fusedCalls = 0;
};

PassResult trainPass(MaskedLanguageModel& model, const Batch& b, const ForwardOptions& options) {
  model->train();
  model->zero_grad();
  const auto before = torch_compat::fusedAttentionCalls();
  auto out = model->forward(b.ids, b.keep, b.labels, options);
  auto loss = out.loss;
  for (const auto& p : out.guidanceProbabilities) loss = loss + p.square().mean();
  loss.backward();
  PassResult r;
  r.fusedCalls = torch_compat::fusedAttentionCalls() - before;
  r.loss = out.loss.detach();
  for (auto& p : model->named_parameters())
    if (p.value().grad().defined()) r.grads.emplace_back(p.key(), p.value().grad().clone());
  return r;
}

void compareResults(const PassResult& fused, const PassResult& plain) {
  const double lossErr = maxAbsDiff(fused.loss, plain.loss);
  QVERIFY2(lossErr < 1e-5, qPrintable(QString("loss differs by %1").arg(lossErr)));
  QCOMPARE(fused.grads.size(), plain.grads.size());
  for (std::size_t i = 0; i < fused.grads.size(); ++i) {
    const auto& [name, g] = fused.grads[i];
    const double scale = std::max(1.0, plain.grads[i].second.abs().max().item<double>());
    const double err = maxAbsDiff(g, plain.grads[i].second) / scale;
    QVERIFY2(err < 2e-5, qPrintable(QString("gradient of %1 differs by %2 (relative)")
                                        .arg(QString::fromStdString(name))
                                        .arg(err)));
  }
}

struct Combination {
  const char* name;
  AttentionSetup setup;
  std::uint64_t fusedLayers;  ///< of the model's 2, those that take the fused kernel in training
};

/// Every mechanism that may fuse, one combination of several, and those that must not.
const std::vector<Combination>& combinations() {
  static const std::vector<Combination> all = {
      {"baseline", [](AttentionConfig&) {}, 2},
      {"temperature", [](AttentionConfig& a) { a.temperature = true; }, 2},
      {"blur values", [](AttentionConfig& a) { a.blur.target = BlurTarget::Values; }, 2},
      {"blur context", [](AttentionConfig& a) { a.blur.target = BlurTarget::Context; }, 2},
      {"squeeze-excitation", [](AttentionConfig& a) { a.squeeze.enabled = true; }, 2},
      {"asa (clean pass)", [](AttentionConfig& a) { a.asa.enabled = true; }, 2},
      {"temperature + blur + squeeze",
       [](AttentionConfig& a) {
         a.temperature = true;
         a.blur.target = BlurTarget::Context;
         a.squeeze.enabled = true;
       },
       2},
      // Gated attention and QK-norm act outside the attention product: fused.
      {"output gate head", [](AttentionConfig& a) { a.outputGate = OutputGate::Head; }, 2},
      {"output gate element", [](AttentionConfig& a) { a.outputGate = OutputGate::Element; }, 2},
      {"qk-norm layer", [](AttentionConfig& a) { a.qkNorm = QkNorm::Layer; }, 2},
      {"qk-norm rms", [](AttentionConfig& a) { a.qkNorm = QkNorm::Rms; }, 2},
      {"qk-norm rms + temperature + output gate element",
       [](AttentionConfig& a) {
         a.qkNorm = QkNorm::Rms;
         a.temperature = true;
         a.outputGate = OutputGate::Element;
       },
       2},
      {"qk-norm layer + output gate head + RealFormer",
       [](AttentionConfig& a) {
         a.qkNorm = QkNorm::Layer;
         a.outputGate = OutputGate::Head;
         a.residual = ResidualScores::Sum;
       },
       0},
      // Trained biases and probabilities that are read or changed: explicit. Position
      // interactions sit in layer 0 only (attention.position.layers = first): layer 1 fuses.
      {"position interactions", [](AttentionConfig& a) { a.position.mode = PositionMode::Both; },
       1},
      {"position interactions, every layer",
       [](AttentionConfig& a) {
         a.position.mode = PositionMode::Both;
         a.position.layers = PositionLayers::All;
       },
       0},
      {"residual (RealFormer)", [](AttentionConfig& a) { a.residual = ResidualScores::Sum; }, 0},
      {"conv 1d", [](AttentionConfig& a) { a.conv = ConvAttention::OneD; }, 0},
      {"conv 2d", [](AttentionConfig& a) { a.conv = ConvAttention::TwoD; }, 0},
  };
  return all;
}

}  // namespace

class TestFusedAttention : public QObject {
  Q_OBJECT
 private slots:
  void trainingPassMatchesExplicit_data() {
    QTest::addColumn<int>("combination");
    for (std::size_t i = 0; i < combinations().size(); ++i)
      QTest::newRow(combinations()[i].name) << static_cast<int>(i);
  }

  void trainingPassMatchesExplicit() {
    QFETCH(int, combination);
    const Combination& c = combinations()[static_cast<std::size_t>(combination)];
    auto [fused, plain] = twinModels(c.setup);
    const auto batch = makeBatch();
    const auto a = trainPass(fused, batch, {});
    const auto b = trainPass(plain, batch, {});
    QCOMPARE(b.fusedCalls, std::uint64_t{0});
    QCOMPARE(a.fusedCalls, torch_compat::hasFusedAttention() ? c.fusedLayers : std::uint64_t{0});
    compareResults(a, b);
  }

  void unpaddedBatchWithoutBias_data() { trainingPassMatchesExplicit_data(); }

  void unpaddedBatchWithoutBias() {
    // A batch with no padding may leave the all-zero padding bias out (BatchPadding::None,
    // what the trainer passes for full batches): same loss and gradients as with it, on
    // both paths, and the fused model still takes the fused kernel where it did.
    QFETCH(int, combination);
    const Combination& c = combinations()[static_cast<std::size_t>(combination)];
    auto [fused, plain] = twinModels(c.setup);
    auto batch = makeBatch();
    batch.keep.fill_(true);
    ForwardOptions unpadded;
    unpadded.padding = BatchPadding::None;
    for (auto* model : {&fused, &plain}) {
      const auto withBias = trainPass(*model, batch, {});
      const auto without = trainPass(*model, batch, unpadded);
      QCOMPARE(without.fusedCalls, withBias.fusedCalls);
      compareResults(without, withBias);
      // The setting is honoured: on a batch that has padding, leaving the bias out lets the
      // padding keys be attended and changes the loss.
      const auto padded = makeBatch();
      const double change =
          maxAbsDiff(trainPass(*model, padded, unpadded).loss, trainPass(*model, padded, {}).loss);
      QVERIFY2(change > 1e-6, qPrintable(QString("loss changed by %1").arg(change)));
    }
  }

  void evaluationFusesPositionInteractions() {
    // Without gradients the position bias is a constant, so the fused kernel takes it.
    auto [fused, plain] = twinModels([](AttentionConfig& a) {
      a.position.mode = PositionMode::Both;
      a.position.layers = PositionLayers::All;
    });
    fused->eval();
    plain->eval();
    const auto b = makeBatch();
    torch::NoGradGuard noGrad;
    const auto before = torch_compat::fusedAttentionCalls();
    const auto x = fused->encode(b.ids, b.keep);
    const auto calls = torch_compat::fusedAttentionCalls() - before;
    QCOMPARE(calls, torch_compat::hasFusedAttention() ? std::uint64_t{2} : std::uint64_t{0});
    QVERIFY(maxAbsDiff(x, plain->encode(b.ids, b.keep)) < 1e-5);
  }

  void guidanceAndCapturesStayExplicit() {
    auto [fused, plain] = twinModels([](AttentionConfig&) {});
    const auto batch = makeBatch();
    ForwardOptions guided;
    guided.keepGuidanceProbabilities = true;
    const auto a = trainPass(fused, batch, guided);
    QCOMPARE(a.fusedCalls, std::uint64_t{0});
    compareResults(a, trainPass(plain, batch, guided));
    HookRequest request;
    request.capture("blocks.*.attn.probs");
    HookSession hooks(request);
    ForwardOptions captured;
    captured.hooks = &hooks;
    QCOMPARE(trainPass(fused, batch, captured).fusedCalls, std::uint64_t{0});
    // One pass, one capture per layer: blocks.0.attn.probs and blocks.1.attn.probs.
    QCOMPARE(hooks.cache().names().size(), std::size_t{2});
    QCOMPARE(hooks.cache().layers("attn.probs", 2).size(), std::size_t{2});
  }

  void cpuAttentionDropoutStaysExplicit() {
    // The fused kernel's dropout would draw from LibTorch's global generator, not the run's.
    auto [fused, plain] = twinModels([](AttentionConfig&) {}, 0.1);
    const auto batch = makeBatch();
    QCOMPARE(trainPass(fused, batch, {}).fusedCalls, std::uint64_t{0});
    fused->eval();
    torch::NoGradGuard noGrad;
    const auto before = torch_compat::fusedAttentionCalls();
    fused->encode(batch.ids, batch.keep);
    QCOMPARE(torch_compat::fusedAttentionCalls() - before,
             torch_compat::hasFusedAttention() ? std::uint64_t{2} : std::uint64_t{0});
  }

  void compatibilityLayerNamesItsLine() {
    QVERIFY(torch_compat::torchVersion() >= 113);
    QCOMPARE(torch_compat::hasFusedAttention(), torch_compat::torchVersion() >= 200);
    if (!torch_compat::hasFusedAttention())
      QVERIFY_THROWS_EXCEPTION(
          std::exception,
          torch_compat::fusedAttention(torch::zeros({1, 1, 2, 2}), torch::zeros({1, 1, 2, 2}),
                                       torch::zeros({1, 1, 2, 2}), {}, 0.0, 1.0));
    // Debian's 1.13 is CPU-only; the wheel's 2.x names the CUDA it was built with.
    if (torch_compat::builtWithCuda())
      QVERIFY(torch_compat::cudaRuntimeVersion() != "none");
    else
      QCOMPARE(QString::fromStdString(torch_compat::cudaRuntimeVersion()), QString("none"));
  }
};

QTEST_APPLESS_MAIN(TestFusedAttention)
#include "test_fused_attention.moc"
