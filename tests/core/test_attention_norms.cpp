// Norm-based attention (Kobayashi et al. 2020) against the paper's formula written out in this
// file, in double: f_h(x_j) = (x_j W_V,h + b_V,h) W_O,h from the layer's own parameters, the
// softmax by hand, ||alpha_ij,h f_h(x_j)|| per head and ||sum_h alpha_ij,h f_h(x_j)|| per layer
// as explicit sums over heads and value vectors. With the learnable temperature (tau_v scales
// the values) and SesameBERT's context blur (a Gaussian along the sequence, replicate edges).
// Negative control: a perturbed value projection moves the norms and not the weights.
#include "core/config/run_config.h"
#include "core/inspect/attention_norms.h"
#include "core/model/encoder_layer.h"
#include "core/model/masked_lm.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>

using namespace attnlab::core;

namespace {

constexpr int kHidden = 16, kHeads = 4, kHeadSize = 4, kLength = 6;

ModelConfig smallConfig() {
  ModelConfig c;
  c.layers = 1;
  c.hiddenSize = kHidden;
  c.heads = kHeads;
  c.ffnSize = 32;
  c.dropout = 0.0;
  c.attentionDropout = 0.0;
  c.maxPositions = 32;
  return c;
}

torch::Tensor param(torch::nn::Module& m, const std::string& name) {
  return m.named_parameters()[name].detach().to(torch::kFloat64);
}

/// The reference of one sequence [T, H]: per head, the weights by hand, the vectors
/// f_h(x_j), and both norms as explicit sums.
struct Reference {
  torch::Tensor alpha;       // [heads, T, T]
  torch::Tensor valueNorms;  // [heads, T]
  torch::Tensor headNorms;   // [heads, T, T]
  torch::Tensor layerNorms;  // [T, T]
};

/// Blurs rows of alpha along the query axis: sum_m k_m alpha[clamp(i + m - 1)][j], k from
/// exp(-x^2 / 2 sigma^2) at x = -1, 0, 1, normalised.
torch::Tensor blurQueries(const torch::Tensor& alpha, double sigma) {
  std::vector<double> k = {std::exp(-1 / (2 * sigma * sigma)), 1.0,
                           std::exp(-1 / (2 * sigma * sigma))};
  const double z = k[0] + k[1] + k[2];
  auto out = torch::zeros_like(alpha);
  const auto T = alpha.size(1);
  for (int64_t i = 0; i < T; ++i)
    for (int m = 0; m < 3; ++m) {
      const int64_t src = std::clamp<int64_t>(i + m - 1, 0, T - 1);
      out.select(1, i) += (k[static_cast<size_t>(m)] / z) * alpha.select(1, src);
    }
  return out;
}

/// `tau` [3, heads]: Dufter et al.'s tau_q, tau_k, tau_v (ones without the temperature).
Reference reference(EncoderLayerImpl& layer, const torch::Tensor& x, const torch::Tensor& tau,
                    double blurSigma) {
  const auto qkv = torch::matmul(x, param(layer, "attention.qkv.weight").t()) +
                   param(layer, "attention.qkv.bias");
  const auto wO = param(layer, "attention.output.weight");  // [out, in]
  Reference r;
  r.alpha = torch::zeros({kHeads, kLength, kLength}, torch::kFloat64);
  std::vector<torch::Tensor> f(kHeads);  // [T, hidden] per head
  for (int h = 0; h < kHeads; ++h) {
    const auto cols = [&](int part) {
      return qkv.slice(1, part * kHidden + h * kHeadSize, part * kHidden + (h + 1) * kHeadSize);
    };
    const auto q = cols(0) * tau[0][h].item<double>(), k = cols(1) * tau[1][h].item<double>();
    const auto v = cols(2) * tau[2][h].item<double>();
    for (int64_t i = 0; i < kLength; ++i) {
      std::vector<double> e(kLength);
      double z = 0;
      for (int64_t j = 0; j < kLength; ++j) {
        e[j] = std::exp((q[i] * k[j]).sum().item<double>() / std::sqrt(double(kHeadSize)));
        z += e[j];
      }
      for (int64_t j = 0; j < kLength; ++j) r.alpha[h][i][j] = e[j] / z;
    }
    f[h] = torch::matmul(v, wO.slice(1, h * kHeadSize, (h + 1) * kHeadSize).t());
  }
  if (blurSigma > 0) r.alpha = blurQueries(r.alpha, blurSigma);
  r.valueNorms = torch::zeros({kHeads, kLength}, torch::kFloat64);
  r.headNorms = torch::zeros({kHeads, kLength, kLength}, torch::kFloat64);
  r.layerNorms = torch::zeros({kLength, kLength}, torch::kFloat64);
  for (int64_t i = 0; i < kLength; ++i)
    for (int64_t j = 0; j < kLength; ++j) {
      auto sum = torch::zeros({kHidden}, torch::kFloat64);
      for (int h = 0; h < kHeads; ++h) {
        const auto contribution = r.alpha[h][i][j] * f[h][j];
        r.headNorms[h][i][j] = contribution.norm();
        r.valueNorms[h][j] = f[h][j].norm();
        sum += contribution;
      }
      r.layerNorms[i][j] = sum.norm();
    }
  return r;
}

struct Captured {
  torch::Tensor probabilities;  // [heads, T, T]
  LayerNorms norms;
};

Captured capture(EncoderLayerImpl& layer, const torch::Tensor& x) {
  torch::NoGradGuard noGrad;
  HookRequest request;
  request.capture("blocks.0.attn.probs")
      .capture("blocks.0.attn.mixing")
      .capture("blocks.0.attn.value_norms")
      .capture("blocks.0.attn.value_gram");
  HookSession hooks(request);
  AttentionContext context;
  context.hooks = &hooks;
  layer.forward(x.unsqueeze(0).to(torch::kFloat), context);
  const auto& cache = hooks.cache();
  LayerNorms n =
      attentionNorms(cache.at("blocks.0.attn.mixing"), cache.at("blocks.0.attn.value_norms"),
                     cache.at("blocks.0.attn.value_gram"));
  return {cache.at("blocks.0.attn.probs").squeeze(0),
          {n.valueNorms.squeeze(0), n.headNorms.squeeze(0), n.layerNorms.squeeze(0)}};
}

double maxError(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64) - b).abs().max().item<double>();
}

}  // namespace

class TestAttentionNorms : public QObject {
  Q_OBJECT

  void randomise(EncoderLayerImpl& layer) {
    torch::NoGradGuard noGrad;
    for (auto& p : layer.named_parameters()) p.value().normal_(0.0, 0.4);
  }

 private slots:
  void initTestCase() { torch::manual_seed(11); }

  void normsMatchTheExplicitSums_data() {
    QTest::addColumn<bool>("temperature");
    QTest::addColumn<bool>("blurContext");
    QTest::newRow("plain") << false << false;
    QTest::newRow("learnable temperature (tau_v scales the values)") << true << false;
    QTest::newRow("SesameBERT's context blur (alpha blurred along the queries)") << false << true;
  }
  void normsMatchTheExplicitSums() {
    QFETCH(bool, temperature);
    QFETCH(bool, blurContext);
    AttentionConfig attention;
    attention.temperature = temperature;
    if (blurContext) {
      attention.blur.target = BlurTarget::Context;
      attention.blur.sigma = 0.8;  // a visible blur (the default 0.3 keeps 99% in place)
    }
    EncoderLayer layer(smallConfig(), attention, 0, kLength);
    randomise(*layer);
    layer->eval();
    auto tau = torch::ones({3, kHeads}, torch::kFloat64);
    if (temperature) {
      tau[0] = torch::tensor({1.2, 0.8, 1.0, 0.7}, torch::kFloat64);
      tau[1] = torch::tensor({0.9, 1.1, 1.3, 1.0}, torch::kFloat64);
      tau[2] = torch::tensor({0.5, 1.0, 2.0, 3.0}, torch::kFloat64);
      torch::NoGradGuard noGrad;
      const char* names[] = {"attention.temperature_q", "attention.temperature_k",
                             "attention.temperature_v"};
      for (int i = 0; i < 3; ++i) layer->named_parameters()[names[i]].copy_(tau[i]);
    }
    const auto x = torch::randn({kLength, kHidden}, torch::kFloat64);
    const Captured ours = capture(*layer, x);
    const Reference ref = reference(*layer, x, tau, blurContext ? 0.8 : 0.0);
    QVERIFY2(maxError(ours.norms.valueNorms, ref.valueNorms) < 1e-4,
             qPrintable(QString::number(maxError(ours.norms.valueNorms, ref.valueNorms))));
    QVERIFY2(maxError(ours.norms.headNorms, ref.headNorms) < 1e-4,
             qPrintable(QString::number(maxError(ours.norms.headNorms, ref.headNorms))));
    QVERIFY2(maxError(ours.norms.layerNorms, ref.layerNorms) < 1e-4,
             qPrintable(QString::number(maxError(ours.norms.layerNorms, ref.layerNorms))));
    // The sum over heads is not the sum of the heads' norms (the vectors point apart).
    QVERIFY(maxError(ours.norms.headNorms.sum(0), ref.layerNorms) > 1e-3);
  }

  void aPerturbedValueProjectionMovesTheNormsNotTheWeights() {
    EncoderLayer layer(smallConfig(), AttentionConfig{}, 0, kLength);
    randomise(*layer);
    layer->eval();
    const auto x = torch::randn({kLength, kHidden}, torch::kFloat64);
    const Captured before = capture(*layer, x);
    {
      torch::NoGradGuard noGrad;
      auto w = layer->named_parameters()["attention.qkv.weight"];
      w.slice(0, 2 * kHidden, 3 * kHidden).mul_(1.7).add_(0.1);  // the value rows only
    }
    const Captured after = capture(*layer, x);
    QCOMPARE(maxError(after.probabilities, before.probabilities.to(torch::kFloat64)), 0.0);
    QVERIFY(maxError(after.norms.headNorms, before.norms.headNorms.to(torch::kFloat64)) > 1e-2);
    QVERIFY(maxError(after.norms.layerNorms, before.norms.layerNorms.to(torch::kFloat64)) > 1e-2);
  }
};

QTEST_APPLESS_MAIN(TestAttentionNorms)
#include "test_attention_norms.moc"
