// Named hook points (core/model/hook_points.h, docs/hook-points.md): patterns, the names and
// shapes a pass offers, each captured tensor against its definition recomputed here from
// the neighbouring captures and the module's own weights, replacement (activation patching
// gives the patched-from input's output), and the fused kernel still taken when nothing
// inside the attention product is asked for.
#include "core/config/run_config.h"
#include "core/model/hook_points.h"
#include "core/model/masked_lm.h"
#include "core/runtime/torch_compat.h"
#include "tests/support/tensor_checks.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>
#include <set>

using namespace attnlab::core;
using attnlab::tests::maxAbsDiff;

namespace {

constexpr int kVocab = 40;
constexpr int kLength = 10;
constexpr int kPad = 0;
constexpr int kLayers = 2;
constexpr int kHidden = 16;
constexpr int kHeads = 2;
constexpr int kFfn = 24;

ModelConfig tinyModel() {
  ModelConfig c;
  c.layers = kLayers;
  c.hiddenSize = kHidden;
  c.heads = kHeads;
  c.ffnSize = kFfn;
  c.maxPositions = 16;
  c.fusedAttention = true;
  return c;
}

MaskedLanguageModel makeModel(const AttentionConfig& attention = {}) {
  torch::manual_seed(5);
  MaskedLanguageModel model(tinyModel(), attention, kLength, kVocab, kPad);
  model->resetParameters(0.3);  // far from uniform attention
  model->eval();
  return model;
}

struct Batch {
  torch::Tensor ids, keep;
};

Batch makeBatch(int seed) {
  torch::manual_seed(seed);
  Batch b;
  b.ids = torch::randint(3, kVocab, {2, kLength}, torch::kLong);
  b.keep = torch::ones({2, kLength}, torch::kBool);
  b.keep.index_put_({1, torch::indexing::Slice(7, kLength)}, false);  // padding in row 1
  b.ids.masked_fill_(b.keep.logical_not(), kPad);
  return b;
}

/// The encoder's output of a pass with `request` (empty: no hooks at all).
torch::Tensor encodeWith(MaskedLanguageModel& model, const Batch& b, const HookRequest* request,
                         ActivationCache* cache = nullptr) {
  torch::NoGradGuard noGrad;
  if (request == nullptr) return model->encode(b.ids, b.keep);
  HookSession hooks(*request);
  auto out = model->encode(b.ids, b.keep, &hooks);
  if (cache != nullptr) *cache = hooks.cache();
  return out;
}

ActivationCache captureAll(MaskedLanguageModel& model, const Batch& b) {
  HookRequest request;
  request.capture("*");
  ActivationCache cache;
  encodeWith(model, b, &request, &cache);
  return cache;
}

}  // namespace

class TestHookPoints : public QObject {
  Q_OBJECT

 private slots:
  void patternsMatchNames() {
    QVERIFY(hookNameMatches("embed", "embed"));
    QVERIFY(!hookNameMatches("embed", "embedding"));
    QVERIFY(hookNameMatches("*", "blocks.3.attn.pattern"));
    QVERIFY(hookNameMatches("blocks.*.attn.pattern", "blocks.11.attn.pattern"));
    QVERIFY(!hookNameMatches("blocks.*.attn.pattern", "blocks.1.attn.probs"));
    QVERIFY(hookNameMatches("blocks.1.*", "blocks.1.mlp.out"));
    QVERIFY(!hookNameMatches("blocks.1.*", "blocks.10.mlp.out"));
    QVERIFY(hookNameMatches("*.attn.*", "blocks.0.attn.z"));
    QVERIFY(hookNameMatches("blocks.*.resid_*", "blocks.0.resid_mid"));
    QVERIFY(!hookNameMatches("blocks.*.resid_*", "blocks.0.attn.out"));
    QVERIFY(!hookNameMatches("", "embed"));
  }

  void everyNameWithItsShape() {
    AttentionConfig attention;
    attention.squeeze.enabled = true;
    auto model = makeModel(attention);
    const auto cache = captureAll(model, makeBatch(1));
    const std::int64_t B = 2, T = kLength, H = kHeads, d = kHidden / kHeads;
    std::map<std::string, std::vector<std::int64_t>> expected = {
        {"embed", {B, T, kHidden}},
        {"squeeze.weights", {B, kLayers}},
        {"encoder.out", {B, T, kHidden}},
    };
    for (int l = 0; l < kLayers; ++l) {
      const std::string p = "blocks." + std::to_string(l) + ".";
      for (const char* n : {"attn.q", "attn.k", "attn.v", "attn.z"}) expected[p + n] = {B, H, T, d};
      for (const char* n : {"attn.scores", "attn.probs", "attn.pattern", "attn.mixing"})
        expected[p + n] = {B, H, T, T};
      expected[p + "attn.value_norms"] = {B, H, T};
      expected[p + "attn.value_gram"] = {B, T, H, H};
      expected[p + "mlp.pre"] = {B, T, kFfn};
      for (const char* n : {"attn.out", "resid_pre", "resid_mid", "resid_post", "mlp.out"})
        expected[p + n] = {B, T, kHidden};
    }
    std::set<std::string> got(cache.names().begin(), cache.names().end());
    for (const auto& [name, shape] : expected) {
      QVERIFY2(got.count(name) == 1, name.c_str());
      QCOMPARE(cache.at(name).sizes().vec(), shape);
      got.erase(name);
    }
    // Names this test does not know yet must be listed above (and in docs/hook-points.md).
    for (const auto& extra : got) QVERIFY2(extra.rfind("blocks.", 0) == 0, extra.c_str());
    QVERIFY(!cache.at("embed").requires_grad());
    QVERIFY(cache.names().front() == "embed");
  }

  void capturesAgreeWithTheirDefinitions() {
    auto model = makeModel();
    const auto b = makeBatch(2);
    const auto c = captureAll(model, b);
    const double scale = 1.0 / std::sqrt(double(kHidden / kHeads));
    const auto bias = (1.0 - b.keep.to(torch::kFloat).unsqueeze(1).unsqueeze(2)) * -10000.0;
    for (int l = 0; l < kLayers; ++l) {
      const std::string p = "blocks." + std::to_string(l) + ".";
      const auto scores = torch::matmul(c.at(p + "attn.q"), c.at(p + "attn.k").transpose(-2, -1));
      QVERIFY(maxAbsDiff(scores * scale, c.at(p + "attn.scores")) < 1e-5);
      const auto probs = torch::softmax(c.at(p + "attn.scores") + bias, -1);
      QVERIFY(maxAbsDiff(probs, c.at(p + "attn.probs")) < 1e-6);
      QVERIFY(maxAbsDiff(c.at(p + "attn.probs"), c.at(p + "attn.pattern")) == 0.0);
      QVERIFY(maxAbsDiff(torch::matmul(c.at(p + "attn.pattern"), c.at(p + "attn.v")),
                         c.at(p + "attn.z")) < 1e-6);
      // attn.out = concat_h(z_h) W_O^T + b_O, from the module's own weights.
      auto& attention = *model->layer(l)->attention();
      const auto params = attention.named_parameters();
      const auto merged = c.at(p + "attn.z").transpose(1, 2).reshape({2, kLength, kHidden});
      const auto out =
          torch::nn::functional::linear(merged, params["output.weight"], params["output.bias"]);
      QVERIFY(maxAbsDiff(out, c.at(p + "attn.out")) < 1e-5);
      // Post-LN: resid_mid = LN(resid_pre + attn.out), resid_post = LN(resid_mid + mlp.out).
      auto layerParams = model->layer(l)->named_parameters();
      auto norm = [&](const torch::Tensor& x, const std::string& which) {
        return torch::layer_norm(x, {kHidden}, layerParams[which + ".weight"],
                                 layerParams[which + ".bias"], 1e-12);
      };
      QVERIFY(maxAbsDiff(norm(c.at(p + "resid_pre") + out, "attention_norm"),
                         c.at(p + "resid_mid")) < 1e-5);
      // mlp.out = W_out GELU(mlp.pre) + b_out, mlp.pre = W_in resid_mid + b_in.
      const auto pre = torch::nn::functional::linear(
          c.at(p + "resid_mid"), layerParams["ffn_in.weight"], layerParams["ffn_in.bias"]);
      QVERIFY(maxAbsDiff(pre, c.at(p + "mlp.pre")) < 1e-5);
      QVERIFY(maxAbsDiff(torch::nn::functional::linear(torch::gelu(c.at(p + "mlp.pre")),
                                                       layerParams["ffn_out.weight"],
                                                       layerParams["ffn_out.bias"]),
                         c.at(p + "mlp.out")) < 1e-5);
      QVERIFY(maxAbsDiff(norm(c.at(p + "resid_mid") + c.at(p + "mlp.out"), "ffn_norm"),
                         c.at(p + "resid_post")) < 1e-5);
    }
    QVERIFY(maxAbsDiff(c.at("embed"), c.at("blocks.0.resid_pre")) == 0.0);
    QVERIFY(maxAbsDiff(c.at("blocks.0.resid_post"), c.at("blocks.1.resid_pre")) == 0.0);
    QVERIFY(maxAbsDiff(c.at("blocks.1.resid_post"), c.at("encoder.out")) == 0.0);
  }

  void hooksLeaveThePassBitwiseAsItWas() {
    auto model = makeModel();
    const auto b = makeBatch(3);
    const auto plain = encodeWith(model, b, nullptr);
    HookRequest none;
    QVERIFY(torch::equal(plain, encodeWith(model, b, &none)));
    HookRequest everything;
    everything.capture("*");
    QVERIFY(maxAbsDiff(plain, encodeWith(model, b, &everything)) < 1e-5);
    HookRequest identity;
    identity.replace("blocks.*", [](const std::string&, const at::Tensor& t) { return t; });
    QVERIFY(maxAbsDiff(plain, encodeWith(model, b, &identity)) < 1e-5);
  }

  void patchingCarriesTheOtherInputsActivation() {
    auto model = makeModel();
    const auto a = makeBatch(4);
    auto b = makeBatch(5);
    b.keep = a.keep;  // the same mask: later layers then see only the patched stream
    b.ids.masked_fill_(b.keep.logical_not(), kPad);
    ActivationCache fromB;
    HookRequest captureB;
    captureB.capture("blocks.0.resid_post");
    const auto outB = encodeWith(model, b, &captureB, &fromB);
    const auto patch = fromB.at("blocks.0.resid_post");
    HookRequest patchA;
    patchA.replace("blocks.0.resid_post",
                   [patch](const std::string&, const at::Tensor&) { return patch; });
    const auto outA = encodeWith(model, a, nullptr);
    const auto patched = encodeWith(model, a, &patchA);
    QVERIFY(maxAbsDiff(patched, outB) < 1e-6);
    QVERIFY(maxAbsDiff(outA, outB) > 1e-2);  // the patch is what made them equal
  }

  void replacementsRunInOrderAndTheCaptureSeesTheResult() {
    auto model = makeModel();
    const auto b = makeBatch(6);
    std::vector<std::string> seen;
    HookRequest request;
    request
        .replace("blocks.1.attn.z",
                 [&](const std::string& name, const at::Tensor& z) {
                   seen.push_back("first " + name);
                   return z * 2.0;
                 })
        .replace("blocks.*.attn.z",
                 [&](const std::string& name, const at::Tensor& z) {
                   seen.push_back("second " + name);
                   auto ablated = z.clone();
                   ablated.select(1, 0).zero_();  // ablate head 0
                   return ablated;
                 })
        .capture("blocks.1.attn.z");
    ActivationCache cache;
    encodeWith(model, b, &request, &cache);
    const std::vector<std::string> order = {"second blocks.0.attn.z", "first blocks.1.attn.z",
                                            "second blocks.1.attn.z"};
    QCOMPARE(seen, order);
    const auto z = cache.at("blocks.1.attn.z");
    QCOMPARE(z.select(1, 0).abs().max().item<double>(), 0.0);
    QVERIFY(z.select(1, 1).abs().max().item<double>() > 0.0);
    QCOMPARE(cache.names().size(), std::size_t{1});
  }

  void outputGateHookPoints() {
    // Gated attention's gate: [B, H, T] (head) or [B, H, T, d] (element), in (0, 1); z is
    // the context times the gate, so replacing the gate by ones leaves the ungated context.
    const std::int64_t B = 2, T = kLength, H = kHeads, d = kHidden / kHeads;
    for (const auto kind : {OutputGate::Head, OutputGate::Element}) {
      AttentionConfig attention;
      attention.outputGate = kind;
      auto model = makeModel(attention);
      const auto b = makeBatch(8);
      const auto cache = captureAll(model, b);
      const auto gate = cache.at("blocks.1.attn.gate");
      const std::vector<std::int64_t> shape = kind == OutputGate::Head
                                                  ? std::vector<std::int64_t>{B, H, T}
                                                  : std::vector<std::int64_t>{B, H, T, d};
      QCOMPARE(gate.sizes().vec(), shape);
      QVERIFY(gate.min().item<double>() > 0.0 && gate.max().item<double>() < 1.0);
      HookRequest open;
      open.replace("blocks.*.attn.gate",
                   [](const std::string&, const at::Tensor& g) { return torch::ones_like(g); });
      open.capture("blocks.0.attn.z");
      ActivationCache ungated;
      encodeWith(model, b, &open, &ungated);
      const auto g0 = cache.at("blocks.0.attn.gate");
      const auto expanded = kind == OutputGate::Head ? g0.unsqueeze(-1) : g0;
      QVERIFY(torch::allclose(cache.at("blocks.0.attn.z"), ungated.at("blocks.0.attn.z") * expanded,
                              1e-5, 1e-6));
    }
  }

  void differentialHookPoints() {
    // scores and scores2 are the two maps' logits from q and k's halves; probs is the signed
    // map softmax(s1 + mask) - lambda softmax(s2 + mask), whose rows sum to 1 - lambda.
    AttentionConfig attention;
    attention.differential = true;
    auto model = makeModel(attention);
    const auto b = makeBatch(8);
    const auto cache = captureAll(model, b);
    const auto q = cache.at("blocks.1.attn.q"), k = cache.at("blocks.1.attn.k");
    const auto half = q.size(-1) / 2;
    const double scale = 1.0 / std::sqrt(double(half));
    const auto s1 = torch::matmul(q.narrow(-1, 0, half), k.narrow(-1, 0, half).transpose(-1, -2));
    const auto s2 =
        torch::matmul(q.narrow(-1, half, half), k.narrow(-1, half, half).transpose(-1, -2));
    QVERIFY(torch::allclose(cache.at("blocks.1.attn.scores"), s1 * scale, 1e-5, 1e-6));
    QVERIFY(torch::allclose(cache.at("blocks.1.attn.scores2"), s2 * scale, 1e-5, 1e-6));
    const double lambda = model->layer(1)->attention()->differentialLambda().item<double>();
    const double lambdaInit = 0.8 - 0.6 * std::exp(-0.3);  // layer 1
    QVERIFY(std::abs(lambda - lambdaInit) < 0.2);          // N(0, 0.1) vectors of d/2
    const auto probs = cache.at("blocks.1.attn.probs");
    const auto real = b.keep.unsqueeze(1).unsqueeze(2).to(torch::kFloat);  // [B, 1, 1, T]
    const auto rows = (probs * real).sum(-1);
    QVERIFY(torch::allclose(rows, torch::full_like(rows, 1.0 - lambda), 1e-5, 1e-5));
    QVERIFY(probs.min().item<double>() < 0.0);
  }

  void aMissingNameIsNamed() {
    ActivationCache cache;
    try {
      cache.at("blocks.0.attn.pattern");
      QFAIL("no exception");
    } catch (const std::out_of_range& e) {
      QVERIFY(std::string(e.what()).find("blocks.0.attn.pattern") != std::string::npos);
    }
  }

  void fusedKernelUnlessTheProductIsAskedFor() {
    auto model = makeModel();
    const auto b = makeBatch(7);
    auto fusedCalls = [&](const char* pattern) {
      HookRequest request;
      request.capture(pattern);
      const auto before = torch_compat::fusedAttentionCalls();
      encodeWith(model, b, &request);
      return torch_compat::fusedAttentionCalls() - before;
    };
    const std::uint64_t fusedLayers = torch_compat::hasFusedAttention() ? kLayers : 0;
    QCOMPARE(fusedCalls("blocks.*.resid_post"), fusedLayers);
    QCOMPARE(fusedCalls("blocks.*.attn.q"), fusedLayers);
    QCOMPARE(fusedCalls("blocks.*.attn.value_norms"), fusedLayers);
    QCOMPARE(fusedCalls("blocks.*.attn.pattern"), std::uint64_t{0});
    QCOMPARE(fusedCalls("blocks.1.attn.scores"), fusedLayers == 0 ? 0 : fusedLayers - 1);
  }
};

QTEST_APPLESS_MAIN(TestHookPoints)
#include "test_hook_points.moc"
