// How the five papers' mechanisms are wired into the attention block and the model, against
// computations written independently in this file: the attention stages by their formulas in
// double over the modules' own parameters (read through named_parameters()), explicit loops
// for the convolutions and the blur. The standalone variant modules have their own tests
// (test_variant_modules.cpp); this file checks where and how the block and the model use them.
#include "core/config/run_config.h"
#include "core/model/masked_lm.h"
#include "core/model/self_attention.h"
#include "core/model/variants/gaussian_blur.h"
#include "tests/support/reference_conv_attention.h"
#include "tests/support/tensor_checks.h"

#include <torch/torch.h>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace attnlab::core;

namespace {

// A config choice from a data-driven test's text column (the same names TOML uses).
template <class E>
E choiceFrom(E, const QString& name) {
  const auto value = parseChoice<E>(name.toStdString());
  if (!value) qFatal("unknown choice '%s'", qPrintable(name));
  return *value;
}

using attnlab::tests::conv1dLoop;
using attnlab::tests::conv2dLoop;
using attnlab::tests::maxAbsDiff;
using attnlab::tests::throwsTorchError;

constexpr double kMasked = -10000.0;

ModelConfig tinyConfig(int hidden = 8, int layers = 3) {
  ModelConfig c;
  c.layers = layers;
  c.hiddenSize = hidden;
  c.heads = 2;
  c.ffnSize = 2 * hidden;
  c.dropout = 0.0;
  c.attentionDropout = 0.0;
  c.maxPositions = 16;
  return c;
}

torch::Tensor param(torch::nn::Module& m, const std::string& name) {
  return m.named_parameters()[name].detach().to(torch::kFloat64).contiguous();
}

bool hasParameter(torch::nn::Module& m, const std::string& name) {
  return m.named_parameters().contains(name);
}

bool hasChild(torch::nn::Module& m, const std::string& name) {
  return m.named_children().contains(name);
}

// Compares two tensors of the same shape within an absolute tolerance, naming both.
#define CHECK_CLOSE(a, b, tol)                                                                     \
  do {                                                                                             \
    const auto lhs_ = (a);                                                                         \
    const auto rhs_ = (b);                                                                         \
    QCOMPARE(lhs_.sizes().vec(), rhs_.sizes().vec());                                              \
    const double err_ = maxAbsDiff(lhs_, rhs_);                                                    \
    QVERIFY2(err_ < (tol),                                                                         \
             qPrintable(QStringLiteral(#a " vs " #b ": max abs error ") + QString::number(err_))); \
  } while (false)

// keep [B, T] bool -> the additive padding bias [B, 1, 1, T] (0 or -10000), built here.
torch::Tensor paddingBias(const torch::Tensor& keep) {
  return torch::where(keep, torch::zeros({}), torch::full({}, kMasked))
      .to(torch::kFloat32)
      .view({keep.size(0), 1, 1, keep.size(1)});
}

// Row-wise softmax over the last axis, written out (double).
torch::Tensor softmaxRows(const torch::Tensor& x) {
  auto e = (x - std::get<0>(x.max(-1, true))).exp();
  return e / e.sum(-1, true);
}

torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  return torch::matmul(x, w.t()) + b;
}

torch::Tensor layerNorm(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                        double eps) {
  auto mean = x.mean(-1, true);
  auto var = (x - mean).pow(2).mean(-1, true);
  return (x - mean) / (var + eps).sqrt() * w + b;
}

// [B, T, H] -> [B, heads, T, d]
torch::Tensor splitHeads(const torch::Tensor& x, int heads) {
  const auto B = x.size(0), T = x.size(1), H = x.size(2);
  return x.reshape({B, T, heads, H / heads}).permute({0, 2, 1, 3});
}

// [B, heads, T, d] -> [B, T, H]
torch::Tensor mergeHeads(const torch::Tensor& x) {
  const auto B = x.size(0), heads = x.size(1), T = x.size(2), d = x.size(3);
  return x.permute({0, 2, 1, 3}).reshape({B, T, heads * d});
}

// The projections of one attention block on x [B, T, H] (double), from the block's own
// "qkv" weights: q, k, v each [B, T, H] (heads not split yet).
struct Projections {
  torch::Tensor q, k, v;
};
Projections project(torch::nn::Module& attention, const torch::Tensor& x,
                    const std::string& prefix = "") {
  const auto H = x.size(2);
  auto qkv = linear(x.to(torch::kFloat64), param(attention, prefix + "qkv.weight"),
                    param(attention, prefix + "qkv.bias"));
  return {qkv.slice(2, 0, H), qkv.slice(2, H, 2 * H), qkv.slice(2, 2 * H, 3 * H)};
}

// raw = q k^T / sqrt(d) per head: [B, heads, T, T] (double).
torch::Tensor rawScores(const torch::Tensor& q, const torch::Tensor& k, int heads) {
  const double d = double(q.size(2) / heads);
  return torch::matmul(splitHeads(q, heads), splitHeads(k, heads).transpose(-2, -1)) / std::sqrt(d);
}

torch::Tensor rawScores(torch::nn::Module& attention, const torch::Tensor& x, int heads,
                        const std::string& prefix = "") {
  auto p = project(attention, x, prefix);
  return rawScores(p.q, p.k, heads);
}

// output_proj(context [B, T, H]) with the block's "output" weights.
torch::Tensor outputProjection(torch::nn::Module& attention, const torch::Tensor& context,
                               const std::string& prefix = "") {
  return linear(context, param(attention, prefix + "output.weight"),
                param(attention, prefix + "output.bias"));
}

// The replicate-padded 1-D blur along the sequence axis of x [B, T, C] (double), as a loop.
torch::Tensor blurLoop(const torch::Tensor& x, const torch::Tensor& kernel) {
  const auto B = x.size(0), T = x.size(1), C = x.size(2), K = kernel.size(0);
  const auto half = (K - 1) / 2;
  auto xd = x.to(torch::kFloat64).contiguous();
  auto kd = kernel.to(torch::kFloat64).contiguous();
  auto out = torch::zeros({B, T, C}, torch::kFloat64);
  auto xa = xd.accessor<double, 3>();
  auto ka = kd.accessor<double, 1>();
  auto oa = out.accessor<double, 3>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t c = 0; c < C; ++c) {
        double s = 0.0;
        for (int64_t m = 0; m < K; ++m) {
          const int64_t src = std::clamp<int64_t>(t + m - half, 0, T - 1);
          s += ka[m] * xa[b][src][c];
        }
        oa[b][t][c] = s;
      }
  return out;
}

// The embedding output of a model (dropout 0): LN(E[ids] (+ P[0..T))) (double).
torch::Tensor embeddingOutput(torch::nn::Module& model, const torch::Tensor& ids,
                              const ModelConfig& c) {
  auto x = param(model, "token_embedding.weight").index_select(0, ids.reshape({-1}));
  x = x.view({ids.size(0), ids.size(1), -1});
  if (c.positionEmbeddings) {
    x = x + param(model, "position_embedding.weight").slice(0, 0, ids.size(1)).unsqueeze(0);
  }
  return layerNorm(x, param(model, "embedding_norm.weight"), param(model, "embedding_norm.bias"),
                   c.layerNormEps);
}

// A batch of two sequences of length 6, the second padded at its last two positions.
torch::Tensor sampleIds() {
  return torch::tensor({{1, 7, 8, 9, 10, 2}, {1, 11, 12, 2, 0, 0}}, torch::kLong);
}

torch::Tensor sampleLabels(const torch::Tensor& ids) {
  auto labels = torch::full_like(ids, -100);
  labels[0][2] = 5;
  labels[0][4] = 13;
  labels[1][1] = 6;
  labels[1][2] = 12;
  return labels;
}

void fillNormal(torch::nn::Module& m, const std::string& name, double std) {
  torch::NoGradGuard g;
  m.named_parameters()[name].normal_(0.0, std);
}

// Captures the hook points `pattern` matches and counts how often the passes reach them (an
// identity replacement): one count per layer and pass, so a count checks both.
HookRequest& captureCounted(HookRequest& request, const std::string& pattern, int& reached) {
  return request
      .replace(pattern,
               [&reached](const std::string&, const at::Tensor& value) {
                 ++reached;
                 return value;
               })
      .capture(pattern);
}

std::string layerName(int layer, const std::string& suffix) {
  return "blocks." + std::to_string(layer) + "." + suffix;
}

}  // namespace

class TestVariantAttention : public QObject {
  Q_OBJECT
 private slots:
  void init() { torch::manual_seed(11); }

  // ---- 1. RealFormer ------------------------------------------------------------------

  void realFormerCarriesScoresAcrossLayers_data() {
    QTest::addColumn<QString>("residual");
    QTest::newRow("sum (RealFormer default)") << "sum";
    QTest::newRow("mean (use_running_mean)") << "mean";
  }
  void realFormerCarriesScoresAcrossLayers() {
    QFETCH(QString, residual);
    const bool mean = residual == "mean";
    const auto c = tinyConfig(8);
    AttentionConfig a;
    a.residual = choiceFrom(a.residual, residual);
    const int T = 5;
    std::vector<SelfAttention> blocks;
    for (int l = 0; l < 3; ++l) blocks.emplace_back(c, a, l, T);

    auto keep = torch::tensor({{true, true, true, true, true}, {true, true, true, false, false}});
    AttentionContext ctx;
    ctx.paddingBias = paddingBias(keep);
    int scoresReached = 0, probsReached = 0;
    HookRequest request;
    captureCounted(request, "blocks.*.attn.scores", scoresReached);
    captureCounted(request, "blocks.*.attn.probs", probsReached);
    HookSession hooks(request);
    ctx.hooks = &hooks;

    std::vector<torch::Tensor> inputs, outputs;
    torch::Tensor runningSum;
    for (int l = 0; l < 3; ++l) {
      inputs.push_back(torch::randn({2, T, 8}));
      outputs.push_back(blocks[l]->forward(inputs[l], ctx));
      const auto raw = rawScores(*blocks[l], inputs[l], c.heads);
      runningSum = l == 0 ? raw : runningSum + raw;
      // The carried value is the unmasked running SUM in both modes.
      QVERIFY(ctx.residualScores.defined());
      CHECK_CLOSE(ctx.residualScores, runningSum, 1e-4);
      QVERIFY2(ctx.residualScores.min().item<double>() > -1000.0, "mask carried");
    }
    const auto& cache = hooks.cache();
    QCOMPARE(scoresReached, 3);
    QCOMPARE(probsReached, 3);
    const auto scores = cache.layers("attn.scores", 3);
    const auto probabilities = cache.layers("attn.probs", 3);
    torch::Tensor sum;
    for (int l = 0; l < 3; ++l) {
      const auto raw = rawScores(*blocks[l], inputs[l], c.heads);
      sum = l == 0 ? raw : sum + raw;
      const auto logits = mean ? sum / double(l + 1) : sum;
      QCOMPARE(scores[l].sizes().vec(), std::vector<int64_t>({2, 2, T, T}));
      CHECK_CLOSE(scores[l], logits, 1e-4);
      // The mask is added after the carry: probabilities = softmax(logits + padding).
      const auto expected = softmaxRows(logits + paddingBias(keep).to(torch::kFloat64));
      CHECK_CLOSE(probabilities[l], expected, 1e-5);
      QVERIFY(probabilities[l].select(0, 1).slice(2, 3, 5).max().item<double>() < 1e-6);
    }
    // The last block's output, end to end: output_proj(softmax(S_2 + mask) v_2).
    const auto p2 = project(*blocks[2], inputs[2]);
    const auto probs2 =
        softmaxRows((mean ? sum / 3.0 : sum) + paddingBias(keep).to(torch::kFloat64));
    const auto expected2 =
        outputProjection(*blocks[2], mergeHeads(torch::matmul(probs2, splitHeads(p2.v, c.heads))));
    CHECK_CLOSE(outputs[2], expected2, 1e-4);

    // The carry keeps its graph (the official code does not stop it): block 0's projections
    // get a gradient from block 2's output although block 0's output is not used.
    outputs[2].pow(2).sum().backward();
    auto g0 = blocks[0]->named_parameters()["qkv.weight"].grad();
    QVERIFY(g0.defined() && g0.abs().sum().item<double>() > 0);
    auto out0 = blocks[0]->named_parameters()["output.weight"].grad();
    QVERIFY(!out0.defined() || out0.abs().sum().item<double>() == 0);
  }

  void realFormerPreLnModelTrains() {
    auto c = tinyConfig(16, 3);
    c.norm = NormPlacement::Pre;
    AttentionConfig a;
    a.residual = ResidualScores::Sum;
    MaskedLanguageModel model(c, a, 6, 30, 0);
    const auto ids = sampleIds();
    const auto labels = sampleLabels(ids);
    int scoresReached = 0;
    HookRequest request;
    captureCounted(request, "blocks.*.attn.scores", scoresReached).capture("blocks.*.attn.probs");
    HookSession hooks(request);
    auto out = model->forward(ids, ids.ne(0), labels, &hooks);
    QVERIFY(std::isfinite(out.loss.item<double>()));
    const auto& cache = hooks.cache();
    QCOMPARE(scoresReached, 3);
    const auto scores = cache.layers("attn.scores", 3);
    const auto probabilities = cache.layers("attn.probs", 3);
    for (int l = 0; l < 3; ++l) {
      QVERIFY(torch::isfinite(scores[l]).all().item<bool>());
      QVERIFY(probabilities[l].select(0, 1).slice(2, 4, 6).max().item<double>() < 1e-6);
    }
    // Layer 0's scores are its raw scores on the Pre-LN input LN(embeddings).
    const auto x0 = embeddingOutput(*model, ids, c);
    auto attentionIn = layerNorm(x0, param(*model, "layers.0.attention_norm.weight"),
                                 param(*model, "layers.0.attention_norm.bias"), c.layerNormEps);
    CHECK_CLOSE(scores[0], rawScores(*model, attentionIn, c.heads, "layers.0.attention."), 1e-4);

    out.loss.backward();
    for (int l = 0; l < 3; ++l) {
      const auto name = "layers." + std::to_string(l) + ".attention.qkv.weight";
      auto g = model->named_parameters()[name].grad();
      QVERIFY2(g.defined() && g.abs().sum().item<double>() > 0, name.c_str());
    }
    // And a few optimiser steps on one batch lower the loss.
    torch::optim::Adam optimiser(model->parameters(), torch::optim::AdamOptions(1e-2));
    const double first = out.loss.item<double>();
    double last = first;
    for (int step = 0; step < 30; ++step) {
      optimiser.zero_grad();
      auto loss = model->forward(ids, ids.ne(0), labels).loss;
      loss.backward();
      optimiser.step();
      last = loss.item<double>();
      QVERIFY(std::isfinite(last));
    }
    QVERIFY2(last < first - 0.5, qPrintable(QString("loss %1 -> %2").arg(first).arg(last)));
  }

  // ---- 2. Learnable temperature -------------------------------------------------------

  void temperatureParametersAndInit() {
    const auto c = tinyConfig(8, 2);
    AttentionConfig a;
    a.temperature = true;
    SelfAttention block(c, a, 0, 5);
    for (const char* name : {"temperature_q", "temperature_k", "temperature_v"}) {
      QVERIFY2(hasParameter(*block, name), name);
      auto t = block->named_parameters()[name];
      QCOMPARE(t.sizes().vec(), std::vector<int64_t>({2}));
      QVERIFY(torch::equal(t.detach(), torch::ones({2})));
    }
    QVERIFY(!hasParameter(*SelfAttention(c, AttentionConfig{}, 0, 5), "temperature_q"));
    QVERIFY(!SelfAttention(c, AttentionConfig{}, 0, 5)->temperatures().defined());

    MaskedLanguageModel model(c, a, 5, 30, 0);
    for (int l = 0; l < 2; ++l) {
      for (const char* t : {"q", "k", "v"}) {
        const auto name = "layers." + std::to_string(l) + ".attention.temperature_" + t;
        QVERIFY2(hasParameter(*model, name), name.c_str());
        QVERIFY(torch::equal(model->named_parameters()[name].detach(), torch::ones({2})));
        torch::NoGradGuard g;
        model->named_parameters()[name].fill_(3.0);
      }
    }
    model->resetParameters(0.02);
    for (int l = 0; l < 2; ++l) {
      for (const char* t : {"q", "k", "v"}) {
        const auto name = "layers." + std::to_string(l) + ".attention.temperature_" + t;
        QVERIFY2(torch::equal(model->named_parameters()[name].detach(), torch::ones({2})),
                 name.c_str());
      }
      QVERIFY(torch::equal(model->layer(l)->attention()->temperatures(), torch::ones({3, 2})));
    }
  }

  void temperatureScalesScoresAndValues() {
    const auto c = tinyConfig(8, 2);
    AttentionConfig a;
    a.temperature = true;
    SelfAttention block(c, a, 0, 5);
    const std::vector<double> tq = {2.0, 0.6}, tk = {0.8, 2.5}, tv = {1.5, -0.8};
    {
      torch::NoGradGuard g;
      auto p = block->named_parameters();
      p["temperature_q"].copy_(torch::tensor(tq));
      p["temperature_k"].copy_(torch::tensor(tk));
      p["temperature_v"].copy_(torch::tensor(tv));
    }
    std::vector<double> all = tq;
    all.insert(all.end(), tk.begin(), tk.end());
    all.insert(all.end(), tv.begin(), tv.end());
    CHECK_CLOSE(block->temperatures(), torch::tensor(all).view({3, 2}), 1e-7);
    auto x = torch::randn({2, 5, 8});
    auto keep = torch::tensor({{true, true, true, true, true}, {true, true, true, true, false}});
    AttentionContext ctx;
    ctx.paddingBias = paddingBias(keep);
    int scoresReached = 0;
    HookRequest request;
    captureCounted(request, "blocks.*.attn.scores", scoresReached);
    HookSession hooks(request);
    ctx.hooks = &hooks;
    auto out = block->forward(x, ctx);

    const auto p = project(*block, x);
    const auto raw = rawScores(p.q, p.k, 2);  // [B, 2, T, T] without temperature
    auto v = splitHeads(p.v, 2).clone();
    auto expectedScores = raw.clone();
    for (int h = 0; h < 2; ++h) {
      expectedScores.select(1, h).mul_(tq[h] * tk[h]);
      v.select(1, h).mul_(tv[h]);
    }
    QCOMPARE(scoresReached, 1);
    CHECK_CLOSE(hooks.cache().at("blocks.0.attn.scores"), expectedScores, 1e-4);
    const auto probs = softmaxRows(expectedScores + paddingBias(keep).to(torch::kFloat64));
    const auto expected = outputProjection(*block, mergeHeads(torch::matmul(probs, v)));
    CHECK_CLOSE(out, expected, 1e-4);

    out.pow(2).sum().backward();
    for (const char* name : {"temperature_q", "temperature_k", "temperature_v"}) {
      auto grad = block->named_parameters()[name].grad();
      QVERIFY2(grad.defined() && grad.abs().min().item<double>() > 0, name);
    }
  }

  // ---- 3. Direct position interactions ------------------------------------------------

  void positionInteractionsPlacement_data() {
    QTest::addColumn<QString>("layers");
    QTest::newRow("first layer only (official code)") << "first";
    QTest::newRow("every layer") << "all";
  }
  void positionInteractionsPlacement() {
    QFETCH(QString, layers);
    auto c = tinyConfig(8, 2);
    c.positionEmbeddings = false;
    AttentionConfig a;
    a.position.mode = PositionMode::Relative;
    a.position.layers = choiceFrom(a.position.layers, layers);
    MaskedLanguageModel model(c, a, 6, 30, 0);
    QVERIFY(!hasParameter(*model, "position_embedding.weight"));
    QVERIFY(hasChild(*model->layer(0)->attention(), "position"));
    QCOMPARE(hasChild(*model->layer(1)->attention(), "position"), layers == "all");
    QVERIFY(hasParameter(*model, "layers.0.attention.position.relative"));
    QCOMPARE(hasParameter(*model, "layers.1.attention.position.relative"), layers == "all");
    // The BERT init does not clobber the glorot-normal init: not N(0, 0.02) but std ~ 0.3 or so.
    QVERIFY(param(*model, "layers.0.attention.position.relative").std().item<double>() > 0.1);
  }

  void positionBiasAddedToScores_data() {
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("relative");
    QTest::newRow("relative, directional (paper)") << "relative"
                                                   << "directional";
    QTest::newRow("relative, symmetric (code)") << "relative"
                                                << "symmetric";
    QTest::newRow("absolute") << "absolute"
                              << "directional";
    QTest::newRow("both") << "both"
                          << "directional";
  }
  void positionBiasAddedToScores() {
    QFETCH(QString, mode);
    QFETCH(QString, relative);
    auto c = tinyConfig(8, 2);
    c.positionEmbeddings = false;
    AttentionConfig a;
    a.position.mode = choiceFrom(a.position.mode, mode);
    a.position.relative = choiceFrom(a.position.relative, relative);
    a.position.layers = PositionLayers::All;
    MaskedLanguageModel model(c, a, 6, 30, 0);
    model->eval();
    const auto ids = sampleIds();
    const auto keep = ids.ne(0);
    int scoresReached = 0;
    HookRequest request;
    captureCounted(request, "blocks.*.attn.scores", scoresReached).capture("blocks.*.attn.probs");
    HookSession hooks(request);
    model->encode(ids, keep, &hooks);
    const auto& cache = hooks.cache();
    QCOMPARE(scoresReached, 2);

    // The bias [heads, T, T] of layer l from its parameters, indexed here.
    const int64_t T = ids.size(1), maxPos = c.maxPositions;
    if (mode != "absolute") {
      QCOMPARE(param(*model, "layers.0.attention.position.relative").size(1),
               relative == "symmetric" ? maxPos : 2 * maxPos - 1);
    }
    auto biasOf = [&](int l) {
      const auto prefix = "layers." + std::to_string(l) + ".attention.position.";
      auto bias = torch::zeros({2, T, T}, torch::kFloat64);
      if (mode != "relative")
        bias += param(*model, prefix + "absolute").slice(1, 0, T).slice(2, 0, T);
      if (mode != "absolute") {
        const auto r = param(*model, prefix + "relative");
        for (int h = 0; h < 2; ++h)
          for (int64_t i = 0; i < T; ++i)
            for (int64_t j = 0; j < T; ++j) {
              const int64_t index = relative == "symmetric" ? std::abs(i - j) : i - j + maxPos - 1;
              bias[h][i][j] += r[h][index];
            }
      }
      return bias;
    };
    // Layer 0: raw scores on LN(token embeddings) (no position embeddings) plus the bias.
    const auto x0 = embeddingOutput(*model, ids, c);
    const auto expected0 =
        rawScores(*model, x0, c.heads, "layers.0.attention.") + biasOf(0).unsqueeze(0);
    CHECK_CLOSE(cache.at("blocks.0.attn.scores"), expected0, 1e-4);
    CHECK_CLOSE(cache.at("blocks.0.attn.probs"),
                softmaxRows(expected0 + paddingBias(keep).to(torch::kFloat64)), 1e-5);
    // Layer 1 (its own bias with layers = "all"): its input is layer 0's output.
    AttentionContext ctx;
    ctx.paddingBias = paddingBias(keep);
    const auto x1 = model->layer(0)->forward(x0.to(torch::kFloat32), ctx);
    const auto expected1 =
        rawScores(*model, x1, c.heads, "layers.1.attention.") + biasOf(1).unsqueeze(0);
    CHECK_CLOSE(cache.at("blocks.1.attn.scores"), expected1, 1e-4);
  }

  void positionBiasOnlyInFirstLayer() {
    auto c = tinyConfig(8, 2);
    c.positionEmbeddings = false;
    AttentionConfig a;
    a.position.mode = PositionMode::Relative;
    a.position.layers = PositionLayers::First;
    SelfAttention first(c, a, 0, 5), second(c, a, 1, 5);
    QVERIFY(hasChild(*first, "position"));
    QVERIFY(!hasChild(*second, "position"));
    auto x = torch::randn({2, 5, 8});
    auto keep = torch::ones({2, 5}, torch::kBool);
    for (auto* block : {&first, &second}) {
      // Each block's own layer index names its hook point (0 and 1).
      const auto scoresName = layerName(block == &first ? 0 : 1, "attn.scores");
      AttentionContext ctx;
      ctx.paddingBias = paddingBias(keep);
      HookRequest request;
      request.capture(scoresName);
      HookSession hooks(request);
      ctx.hooks = &hooks;
      (*block)->forward(x, ctx);
      auto expected = rawScores(**block, x, 2);
      if (block == &first) {
        const auto r = param(*first, "position.relative");
        auto bias = torch::zeros({2, 5, 5}, torch::kFloat64);
        for (int h = 0; h < 2; ++h)
          for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 5; ++j) bias[h][i][j] = r[h][i - j + c.maxPositions - 1];
        expected = expected + bias.unsqueeze(0);
      }
      CHECK_CLOSE(hooks.cache().at(scoresName), expected, 1e-4);
    }
  }

  // ---- 4. Convolved attention ---------------------------------------------------------

  void convolvedAttention_data() {
    QTest::addColumn<QString>("conv");
    QTest::newRow("2d") << "2d";
    QTest::newRow("1d") << "1d";
  }
  void convolvedAttention() {
    QFETCH(QString, conv);
    const auto c = tinyConfig(8, 2);
    AttentionConfig a;
    a.conv = choiceFrom(a.conv, conv);
    const int T = 5;
    SelfAttention block(c, a, 0, T);
    QVERIFY(hasChild(*block, "conv"));
    // Non-zero biases, so the check covers them too.
    fillNormal(*block, "conv.bias", 0.2);
    const auto w = param(*block, "conv.weight");
    const auto b = param(*block, "conv.bias");
    if (conv == "1d") {
      QCOMPARE(w.sizes().vec(), std::vector<int64_t>({2 * T, T, 3}));
    } else {
      QCOMPARE(w.sizes().vec(), std::vector<int64_t>({2, 1, 3, 3}));
    }
    auto x = torch::randn({2, T, 8});
    auto keep = torch::tensor({{true, true, true, true, true}, {true, true, true, false, false}});
    AttentionContext ctx;
    ctx.paddingBias = paddingBias(keep);
    HookRequest request;
    request.capture("blocks.0.attn.probs");
    HookSession hooks(request);
    ctx.hooks = &hooks;
    auto out = block->forward(x, ctx);

    const auto p = project(*block, x);
    const auto softmax =
        softmaxRows(rawScores(p.q, p.k, 2) + paddingBias(keep).to(torch::kFloat64));
    // "attn.probs" holds the softmax, before the convolution (rows sum to 1).
    CHECK_CLOSE(hooks.cache().at("blocks.0.attn.probs"), softmax, 1e-5);
    const auto convolved = conv == "1d" ? conv1dLoop(softmax, w, b) : conv2dLoop(softmax, w, b);
    QVERIFY(maxAbsDiff(convolved, softmax) > 1e-2);  // the convolution does change something
    const auto expected =
        outputProjection(*block, mergeHeads(torch::matmul(convolved, splitHeads(p.v, 2))));
    CHECK_CLOSE(out, expected, 1e-4);
  }

  void conv1dModelRefusesOtherLengths() {
    const auto c = tinyConfig(8, 2);
    AttentionConfig a;
    a.conv = ConvAttention::OneD;
    MaskedLanguageModel model(c, a, 5, 30, 0);
    QCOMPARE(model->layer(1)->attention()->named_parameters()["conv.weight"].size(0), int64_t(10));
    auto ids5 = torch::tensor({{1, 5, 6, 7, 2}}, torch::kLong);
    auto h = model->encode(ids5, ids5.ne(0));
    QCOMPARE(h.sizes().vec(), std::vector<int64_t>({1, 5, 8}));
    auto ids6 = torch::tensor({{1, 5, 6, 7, 8, 2}}, torch::kLong);
    std::string message;
    QVERIFY(throwsTorchError([&] { model->encode(ids6, ids6.ne(0)); }, &message));
    QVERIFY2(message.find("length 5") != std::string::npos, message.c_str());
    QVERIFY2(message.find('6') != std::string::npos, message.c_str());
  }

  // ---- 5. Gaussian blur (SesameBERT) --------------------------------------------------

  void gaussianBlur_data() {
    QTest::addColumn<QString>("target");
    QTest::addColumn<int>("window");
    QTest::addColumn<double>("sigma");
    QTest::newRow("context, k=3 sigma=0.3 (code)") << "context" << 3 << 0.3;
    QTest::newRow("context, k=5 sigma=1") << "context" << 5 << 1.0;
    QTest::newRow("values, k=3 sigma=0.3") << "values" << 3 << 0.3;
    QTest::newRow("values, k=5 sigma=1") << "values" << 5 << 1.0;
  }
  void gaussianBlur() {
    QFETCH(QString, target);
    QFETCH(int, window);
    QFETCH(double, sigma);
    const auto c = tinyConfig(8, 2);
    AttentionConfig a;
    a.blur.target = choiceFrom(a.blur.target, target);
    a.blur.window = window;
    a.blur.sigma = sigma;
    const int T = 6;
    SelfAttention block(c, a, 0, T);
    // The kernel is a buffer, not a trainable parameter.
    QVERIFY(block->named_buffers().contains("blur_kernel"));
    QVERIFY(!hasParameter(*block, "blur_kernel"));
    // A block without blur but the same weights, to see that the blur changes the output.
    SelfAttention plain(c, AttentionConfig{}, 0, T);
    {
      torch::NoGradGuard g;
      for (auto& p : plain->named_parameters()) p.value().copy_(block->named_parameters()[p.key()]);
    }

    auto x = torch::randn({2, T, 8});
    auto keep = torch::tensor(
        {{true, true, true, true, true, true}, {true, true, true, true, false, false}});
    AttentionContext ctx;
    ctx.paddingBias = paddingBias(keep);
    auto out = block->forward(x, ctx);
    AttentionContext ctxPlain;
    ctxPlain.paddingBias = paddingBias(keep);
    auto outPlain = plain->forward(x, ctxPlain);

    const auto kernel = gaussianKernel(window, sigma);
    const auto p = project(*block, x);
    const auto probs = softmaxRows(rawScores(p.q, p.k, 2) + paddingBias(keep).to(torch::kFloat64));
    torch::Tensor expected;
    if (target == "context") {
      const auto context = mergeHeads(torch::matmul(probs, splitHeads(p.v, 2)));
      expected = outputProjection(*block, blurLoop(context, kernel));
    } else {
      const auto v = blurLoop(p.v, kernel);
      expected = outputProjection(*block, mergeHeads(torch::matmul(probs, splitHeads(v, 2))));
    }
    CHECK_CLOSE(out, expected, 1e-4);
    QVERIFY2(maxAbsDiff(out, outPlain) > 1e-4,
             qPrintable(QString("blur changed nothing: %1").arg(maxAbsDiff(out, outPlain))));
  }

  // ---- 6. Adversarial self-attention in the model -------------------------------------

  void asaParametersAndMasks() {
    const auto c = tinyConfig(16, 2);
    AttentionConfig a;
    a.asa.enabled = true;
    MaskedLanguageModel model(c, a, 6, 30, 0);
    model->eval();
    QVERIFY(model->hasAdversaries());
    for (int l = 0; l < 2; ++l)
      for (const char* part : {"query.weight", "query.bias", "key.weight", "key.bias"}) {
        const auto name = "adversaries." + std::to_string(l) + "." + part;
        QVERIFY2(hasParameter(*model, name), name.c_str());
      }
    QVERIFY(!hasParameter(*model, "adversaries.2.query.weight"));
    QVERIFY(!hasParameter(*MaskedLanguageModel(c, AttentionConfig{}, 6, 30, 0),
                          "adversaries.0.query.weight"));
    // Adversary 0: wider weights than BERT's init, so its mask is far from all-or-nothing.
    fillNormal(*model, "adversaries.0.query.weight", 0.5);
    fillNormal(*model, "adversaries.0.key.weight", 0.5);
    // Adversary 1 masks every cell: zero weights and biases with S = (e0 . -e0) / 4 < 0.
    {
      torch::NoGradGuard g;
      auto p = model->named_parameters();
      p["adversaries.1.query.weight"].zero_();
      p["adversaries.1.key.weight"].zero_();
      p["adversaries.1.query.bias"].zero_()[0] = 1.0;
      p["adversaries.1.key.bias"].zero_()[0] = -1.0;
    }

    const auto ids = sampleIds();
    const auto keep = ids.ne(0);
    const auto labels = sampleLabels(ids);
    ForwardOptions options;
    options.adversarial = true;
    int probsReached = 0;
    HookRequest request;
    captureCounted(request, "blocks.*.attn.probs", probsReached).capture("blocks.*.attn.scores");
    HookSession hooks(request);
    options.hooks = &hooks;
    auto out = model->forward(ids, keep, labels, options);
    QCOMPARE(int(out.adversarialMasks.size()), 2);
    const auto& cache = hooks.cache();
    QCOMPARE(probsReached, 2);
    const auto capturedScores = cache.layers("attn.scores", 2);
    const auto capturedProbabilities = cache.layers("attn.probs", 2);

    // Layer inputs, computed here: x0 from the embeddings, x1 by running layer 0 with the
    // adversarial bias of mask 0 (which replaces the padding bias).
    const auto x0 = embeddingOutput(*model, ids, c);
    AttentionContext ctx;
    ctx.adversarialBiases.push_back(
        (1.0 - out.adversarialMasks[0].detach()).mul(kMasked).unsqueeze(1).to(torch::kFloat32));
    const auto x1 = model->layer(0)->forward(x0.to(torch::kFloat32), ctx).detach();
    const std::vector<torch::Tensor> layerInputs = {x0, x1.to(torch::kFloat64)};

    int64_t maskedRealCells = 0, keptCells = 0;
    for (int l = 0; l < 2; ++l) {
      const auto m = out.adversarialMasks[l].detach().to(torch::kFloat64);
      QCOMPARE(m.sizes().vec(), std::vector<int64_t>({2, 6, 6}));
      QVERIFY(m.eq(0).logical_or(m.eq(1)).all().item<bool>());
      // Padded keys are masked by the adversarial mask itself.
      QCOMPARE(m.select(0, 1).slice(1, 4, 6).abs().sum().item<double>(), 0.0);
      // Adversary l looks at layer l's input: M = [S > 0] on real keys.
      const auto prefix = "adversaries." + std::to_string(l) + ".";
      const auto& xl = layerInputs[l];
      const auto q =
          linear(xl, param(*model, prefix + "query.weight"), param(*model, prefix + "query.bias"));
      const auto k =
          linear(xl, param(*model, prefix + "key.weight"), param(*model, prefix + "key.bias"));
      const auto s = torch::matmul(q, k.transpose(1, 2)) / std::sqrt(16.0);
      const auto expectedMask = s.gt(0).to(torch::kFloat64) * keep.to(torch::kFloat64).unsqueeze(1);
      CHECK_CLOSE(m, expectedMask, 1e-9);

      // Probabilities = softmax(scores + (1 - M) * -10000): the mask replaces the padding.
      // The sum is taken in float32 as the model does: near -10000 its spacing is ~1e-3,
      // which a fully masked row (all logits shifted alike) would otherwise show.
      const auto bias = ((1.0 - m) * kMasked).unsqueeze(1);
      const auto logits = (capturedScores[l] + bias.to(torch::kFloat32)).to(torch::kFloat64);
      const auto expectedProbs = softmaxRows(logits);
      CHECK_CLOSE(capturedProbabilities[l], expectedProbs, 1e-5);
      // ~0 exactly where M = 0, in every row that keeps at least one key.
      const auto probs = capturedProbabilities[l].to(torch::kFloat64);
      const auto rowKeeps = m.sum(-1, true).gt(0).unsqueeze(1);  // [B, 1, T, 1]
      const auto maskedCells = m.eq(0).unsqueeze(1).logical_and(rowKeeps).expand_as(probs);
      if (l == 0) {
        QVERIFY(maskedCells.any().item<bool>());
        QVERIFY(probs.masked_select(maskedCells).max().item<double>() < 1e-6);
      } else {
        // Every cell masked: the mask shifts all logits alike and, as it replaces the
        // padding bias rather than adding to it, the padded keys are not singled out.
        QCOMPARE(m.abs().sum().item<double>(), 0.0);
        QVERIFY(probs.select(0, 1).slice(2, 4, 6).min().item<double>() > 1e-4);
      }
      maskedRealCells += m.eq(0).logical_and(keep.unsqueeze(1)).sum().item<int64_t>();
      keptCells += m.eq(1).sum().item<int64_t>();
    }
    QVERIFY(maskedRealCells > 0 && keptCells > 0);

    // The clean pass gives no masks.
    auto clean = model->forward(ids, keep, labels);
    QVERIFY(clean.adversarialMasks.empty());
    MlmOutput cleanOut;
    model->encodeWith(ids, keep, ForwardOptions{}, cleanOut);
    QVERIFY(cleanOut.adversarialMasks.empty());
  }

  void asaGradients() {
    const auto c = tinyConfig(16, 2);
    AttentionConfig a;
    a.asa.enabled = true;
    const auto ids = sampleIds();
    const auto keep = ids.ne(0);
    const auto labels = sampleLabels(ids);
    auto gradientSum = [](MaskedLanguageModel& model, const std::string& name) {
      auto g = model->named_parameters()[name].grad();
      return g.defined() ? g.abs().sum().item<double>() : 0.0;
    };
    {
      MaskedLanguageModel model(c, a, 6, 30, 0);
      for (int l = 0; l < 2; ++l) {
        fillNormal(*model, "adversaries." + std::to_string(l) + ".query.weight", 0.5);
        fillNormal(*model, "adversaries." + std::to_string(l) + ".key.weight", 0.5);
      }
      ForwardOptions options;
      options.adversarial = true;
      model->forward(ids, keep, labels, options).loss.backward();
      for (int l = 0; l < 2; ++l) {
        for (const char* part : {"query.weight", "key.weight"}) {
          const auto name = "adversaries." + std::to_string(l) + "." + part;
          QVERIFY2(gradientSum(model, name) > 0, name.c_str());
        }
        const auto qkv = "layers." + std::to_string(l) + ".attention.qkv.weight";
        QVERIFY2(gradientSum(model, qkv) > 0, qkv.c_str());
      }
      QVERIFY(gradientSum(model, "token_embedding.weight") > 0);
    }
    {
      MaskedLanguageModel model(c, a, 6, 30, 0);
      model->forward(ids, keep, labels).loss.backward();
      for (const auto& p : model->named_parameters()) {
        if (p.key().rfind("adversaries.", 0) != 0) continue;
        QVERIFY2(!p.value().grad().defined() || p.value().grad().abs().sum().item<double>() == 0,
                 p.key().c_str());
      }
      QVERIFY(gradientSum(model, "layers.0.attention.qkv.weight") > 0);
    }
  }

  // ---- 7. SesameBERT's Squeeze-and-Excitation over the layers -------------------------

  void squeezeExcitationCombinesLayers_data() {
    QTest::addColumn<QString>("combine");
    QTest::addColumn<QString>("norm");
    QTest::newRow("scaled_last, post-LN (code)") << "scaled_last"
                                                 << "post";
    QTest::newRow("weighted_average, post-LN (paper)") << "weighted_average"
                                                       << "post";
    QTest::newRow("weighted_average, pre-LN") << "weighted_average"
                                              << "pre";
  }
  void squeezeExcitationCombinesLayers() {
    QFETCH(QString, combine);
    QFETCH(QString, norm);
    auto c = tinyConfig(8, 3);
    c.norm = choiceFrom(c.norm, norm);
    AttentionConfig a;
    a.squeeze.enabled = true;
    a.squeeze.combine = choiceFrom(a.squeeze.combine, combine);
    MaskedLanguageModel model(c, a, 6, 30, 0);
    model->eval();
    QVERIFY(model->hasSqueezeExcitation());
    // Wider excitation weights, so the layer weights differ from each other.
    fillNormal(*model, "squeeze.fc1.weight", 1.0);
    fillNormal(*model, "squeeze.fc2.weight", 1.0);
    const auto ids = sampleIds();
    const auto keep = ids.ne(0);
    const auto labels = sampleLabels(ids);
    auto out = model->forward(ids, keep, labels, ForwardOptions{});
    const int L = 3;
    QCOMPARE(out.squeezeWeights.sizes().vec(), std::vector<int64_t>({2, L}));
    QVERIFY(out.squeezeWeights.gt(0).all().item<bool>());
    QVERIFY(out.squeezeWeights.lt(1).all().item<bool>());

    // The layer outputs U_l, by running the layers by hand with one context.
    AttentionContext ctx;
    ctx.paddingBias = paddingBias(keep);
    auto x = embeddingOutput(*model, ids, c).to(torch::kFloat32);
    std::vector<torch::Tensor> u;
    for (int l = 0; l < L; ++l) {
      x = model->layer(l)->forward(x, ctx);
      u.push_back(x.detach().to(torch::kFloat64));
    }
    // s = sigmoid(W2 relu(W1 z + b1) + b2), z_l = mean of U_l over real tokens and features.
    auto z = torch::zeros({2, L}, torch::kFloat64);
    const auto keepD = keep.to(torch::kFloat64);
    for (int l = 0; l < L; ++l) {
      z.select(1, l).copy_((u[l].sum(-1) * keepD).sum(1) / (keepD.sum(1) * 8.0));
    }
    const auto hidden = torch::relu(
        linear(z, param(*model, "squeeze.fc1.weight"), param(*model, "squeeze.fc1.bias")));
    const auto s = torch::sigmoid(
        linear(hidden, param(*model, "squeeze.fc2.weight"), param(*model, "squeeze.fc2.bias")));
    CHECK_CLOSE(out.squeezeWeights, s, 1e-5);

    torch::Tensor combined;
    if (combine == "scaled_last") {
      combined = s.select(1, L - 1).view({2, 1, 1}) * u[L - 1];
    } else {
      combined = torch::zeros_like(u[0]);
      for (int l = 0; l < L; ++l) combined = combined + s.select(1, l).view({2, 1, 1}) * u[l];
      combined = combined / s.sum(1).view({2, 1, 1});
    }
    if (norm == "pre") {
      combined = layerNorm(combined, param(*model, "final_norm.weight"),
                           param(*model, "final_norm.bias"), c.layerNormEps);
    }
    CHECK_CLOSE(out.hidden, combined, 1e-4);
    CHECK_CLOSE(model->encode(ids, keep), combined, 1e-4);
    // Not just the last layer unchanged.
    QVERIFY(maxAbsDiff(combined, u[L - 1]) > 1e-3);
  }

  // ---- 8. Attention guidance keeps the probabilities with their graph -----------------

  void guidanceProbabilitiesKeepTheirGraph() {
    auto c = tinyConfig(8, 2);
    c.attentionDropout = 0.5;  // in training mode: guidance sees the pre-dropout probabilities
    MaskedLanguageModel model(c, AttentionConfig{}, 6, 30, 0);
    model->train();
    const auto ids = sampleIds();
    const auto keep = ids.ne(0);
    const auto labels = sampleLabels(ids);

    auto plain = model->forward(ids, keep, labels);
    QVERIFY(plain.guidanceProbabilities.empty());

    ForwardOptions options;
    options.keepGuidanceProbabilities = true;
    int probsReached = 0;
    HookRequest request;
    captureCounted(request, "blocks.*.attn.probs", probsReached);
    HookSession hooks(request);
    options.hooks = &hooks;
    auto out = model->forward(ids, keep, labels, options);
    QCOMPARE(int(out.guidanceProbabilities.size()), 2);
    QCOMPARE(probsReached, 2);
    const auto capturedProbabilities = hooks.cache().layers("attn.probs", 2);
    for (int l = 0; l < 2; ++l) {
      const auto& p = out.guidanceProbabilities[l];
      QCOMPARE(p.sizes().vec(), std::vector<int64_t>({2, 2, 6, 6}));
      QVERIFY(p.requires_grad());
      QVERIFY(torch::equal(p.detach(), capturedProbabilities[l]));
      QVERIFY((p.detach().sum(-1) - 1).abs().max().item<double>() < 1e-5);
      QVERIFY(p.detach().select(0, 1).slice(2, 4, 6).max().item<double>() < 1e-6);
    }
    // A loss on layer 1's probabilities trains that layer's projections.
    model->zero_grad();
    auto target = torch::rand({2, 2, 6, 6});
    (out.guidanceProbabilities[1] * target).sum().backward();
    auto g = model->named_parameters()["layers.1.attention.qkv.weight"].grad();
    QVERIFY(g.defined() && g.abs().sum().item<double>() > 0);
    auto gOut = model->named_parameters()["layers.1.attention.output.weight"].grad();
    QVERIFY(!gOut.defined() || gOut.abs().sum().item<double>() == 0);
  }
};

QTEST_APPLESS_MAIN(TestVariantAttention)
#include "test_variant_attention.moc"
