// What the Inspect tab's views beyond the weights cost on a BERT-base-shaped model (12 layers,
// 12 heads, hidden 768, FFN 3072, BERT's 30,522-token vocabulary; random weights: the
// timings do not depend on them) for one input of 512 tokens, on the CPU, against the plain
// inspection the tab does today (one forward pass capturing the probabilities and the
// pre-softmax scores):
// - norms_ms: the same pass also capturing what norm-based attention needs, plus the head and
//   layer norms of every layer (core/inspect/attention_norms.h), minus the plain pass;
// - rollout_ms: Abnar & Zuidema's rollout at every layer (analysis::attentionRollout);
// - lens_ms: the logit lens of one typed sentence (--lens-tokens, default 32) at every
//   position, top 5 per layer (the pass capturing the layer outputs, then the vocabulary head on
//   each layer: 12 x 768 x 30,522 multiply-adds per token, so it grows with the tokens; the
//   same at --tokens is printed too);
// - ratio: (plain pass with norms + rollout) / plain pass (the bound: 1.5).
// Median of --repeats (default 5) runs each, after one warm-up. Usage:
//   bench_beyond_weights [--tokens N] [--lens-tokens N] [--threads N] [--repeats R]
//                        [--view-switch-ms X]
// (--view-switch-ms passes the app benchmark's figure through, for the last line).
// Last line: rollout_ms=<n> norms_ms=<n> lens_ms=<n> view_switch_ms=<n>
#include "analysis/attention/attention_rollout.h"
#include "core/config/run_config.h"
#include "core/inspect/attention_norms.h"
#include "core/inspect/logit_lens.h"
#include "core/model/masked_lm.h"
#include "tests/bench/bert_base_shape.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

using namespace attnlab;

namespace {

constexpr int kVocab = 30522;

double medianMs(int repeats, const std::function<void()>& work) {
  work();  // warm-up: allocator, OpenMP pool
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct Options {
  int tokens = 512;
  int lensTokens = 32;
  int threads = 2;
  int repeats = 5;
  double viewSwitchMs = -1;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--tokens")) o.tokens = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--repeats")) o.repeats = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--lens-tokens")) o.lensTokens = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) o.threads = std::stoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--view-switch-ms")) o.viewSwitchMs = std::stod(argv[i + 1]);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  torch::set_num_threads(o.threads);
  torch::manual_seed(1);
  core::MaskedLanguageModel model(bench::bertBaseShape(), kVocab, 0);
  model->eval();
  torch::NoGradGuard noGrad;
  const auto ids = torch::randint(5, kVocab, {1, o.tokens}, torch::kLong);
  std::printf("model: 12 x 12 x 768, vocabulary %d, %d tokens, %d LibTorch threads, CPU\n", kVocab,
              o.tokens, torch::get_num_threads());

  const int layers = model->layerCount();
  // One pass over `input` capturing what `request` names: the output and the cache.
  auto pass = [&](const core::HookRequest& request, const at::Tensor& input) {
    core::HookSession hooks(request);
    core::ForwardOptions forward;
    forward.hooks = &hooks;
    core::MlmOutput unused;
    const auto hidden = model->encodeWith(input, input.ne(0), forward, unused);
    return std::make_pair(hidden, std::move(hooks.cache()));
  };
  auto lensOf = [&](const at::Tensor& input) {
    core::HookRequest request;
    request.capture("blocks.*.resid_post");
    auto [hidden, cache] = pass(request, input);
    core::lensPredictions(*model, {cache.takeLayers("resid_post", layers), hidden, false},
                          input.squeeze(0), 5);
  };
  std::vector<at::Tensor> probabilities;
  const double plainMs = medianMs(o.repeats, [&] {
    core::HookRequest request;
    request.capture("blocks.*.attn.probs").capture("blocks.*.attn.scores");
    auto [hidden, cache] = pass(request, ids);
    probabilities = cache.takeLayers("attn.probs", layers);
  });
  const double withNormsMs = medianMs(o.repeats, [&] {
    core::HookRequest request;
    request.capture("blocks.*.attn.probs")
        .capture("blocks.*.attn.scores")
        .capture("blocks.*.attn.mixing")
        .capture("blocks.*.attn.value_norms")
        .capture("blocks.*.attn.value_gram");
    auto [hidden, cache] = pass(request, ids);
    const auto mixing = cache.takeLayers("attn.mixing", layers);
    const auto valueNorms = cache.takeLayers("attn.value_norms", layers);
    const auto valueGram = cache.takeLayers("attn.value_gram", layers);
    for (int l = 0; l < layers; ++l) core::attentionNorms(mixing[l], valueNorms[l], valueGram[l]);
  });
  const auto stacked = torch::stack(probabilities).squeeze(1).contiguous();
  const double rolloutMs = medianMs(o.repeats, [&] {
    analysis::attentionRollout({stacked.data_ptr<float>(), 12, 12, o.tokens});
  });
  const auto sentence = ids.narrow(1, 0, std::min(o.lensTokens, o.tokens));
  const double lensMs = medianMs(o.repeats, [&] { lensOf(sentence); });
  const double lensLongMs = medianMs(1, [&] { lensOf(ids); });
  const double normsMs = withNormsMs - plainMs;
  std::printf("plain inspection (probabilities + scores): %.0f ms\n", plainMs);
  std::printf(
      "with norms: %.0f ms (+%.0f ms); rollout: %.0f ms; ratio (norms + rollout) / plain: "
      "%.2f (bound 1.5)\n",
      withNormsMs, normsMs, rolloutMs, (withNormsMs + rolloutMs) / plainMs);
  std::printf(
      "norms per layer: %.1f ms (the same quantities written straight from the formula "
      "in PyTorch: tests/bench/norms_explicit_pytorch.py %d)\n",
      normsMs / 12, o.tokens);
  std::printf(
      "logit lens, every position, top 5: %.0f ms for a %lld-token sentence (bound 1000), "
      "%.0f ms at %d tokens\n",
      lensMs, static_cast<long long>(sentence.size(1)), lensLongMs, o.tokens);
  char viewSwitch[32] = "n/a";
  if (o.viewSwitchMs >= 0) std::snprintf(viewSwitch, sizeof viewSwitch, "%.1f", o.viewSwitchMs);
  std::printf("rollout_ms=%.0f norms_ms=%.0f lens_ms=%.0f view_switch_ms=%s\n", rolloutMs, normsMs,
              lensMs, viewSwitch);
  return 0;
}
