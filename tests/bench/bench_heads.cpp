// Issue 28's benchmark, on the CPU:
// - importance_vs_eval: head importance (one forward and backward pass with a gate per
//   sequence and head, analysis::analyseHeads) over one evaluation pass of the same masked
//   evaluation set (forward, MLM loss), on a trained run's validation split (--run, e.g. the
//   tiny demo's runs/tiny); the bound: 2.
// - pruning_vs_eval: the importance-ordered pruning curve (its evaluation passes) over one
//   evaluation pass; bound: 12.
// - qk_map_s / qk_all_s: the query-key map (analysis::queryKeyMap: AttentionViz's
//   normalisation and a joint PCA) of one head, and of all 144, over 10,000 tokens of a
//   BERT-base-shaped model (12 x 12 x 768, random weights: the times do not depend on them);
//   the queries and keys are captured first, in one forward pass over 20 x 512 tokens, whose
//   time is printed apart (it is the model's, not the map's); bounds: 3 s and 30 s.
// - heads_repaint_ms: drawing the Heads and Pruning views' figures from the report and
//   painting them (offscreen, 1100 x 500 each); bound: 50.
// Medians of --repeats (default 3). Usage:
//   bench_heads --run RUN_DIR [--repeats R] [--tokens N]
// Last line: importance_vs_eval=<r> pruning_vs_eval=<r> qk_map_s=<n> qk_all_s=<n>
#include "analysis/attention/query_key_map.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/evaluation_set.h"
#include "analysis/runs/head_analysis.h"
#include "analysis/runs/run_selection.h"
#include "core/config/run_config.h"
#include "core/inspect/attention_inspector.h"
#include "core/model/masked_lm.h"
#include "core/runtime/compute_environment.h"
#include "figures/pruning_figures.h"
#include "tests/bench/bert_base_shape.h"
#include "widgets/plots/matrix_heatmap.h"
#include "widgets/plots/scatter_plot.h"

#include <torch/torch.h>

#include <QApplication>
#include <QPixmap>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace attnlab;

namespace {

struct Options {
  std::string run;
  int repeats = 3;
  int tokens = 10000;
};

double seconds(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Importance and pruning against one evaluation pass, on the run's validation split.
std::pair<double, double> importanceAndPruning(const Options& o, analysis::HeadReport& last) {
  const auto selected = analysis::selectCheckpoint(o.run, std::nullopt);
  core::AttentionInspector inspector(selected.checkpoint);
  analysis::EvaluationSet set(inspector, selected.runDir, {});
  analysis::HeadAnalysisOptions options;
  options.ablation = true;
  options.randomSeeds = {1, 2, 3};
  std::vector<double> importance, pruning;
  for (int r = 0; r < o.repeats; ++r) {
    last = analysis::analyseHeads(inspector, set, options);
    importance.push_back(last.importanceSeconds / last.evaluationSeconds);
    pruning.push_back(last.pruningSeconds / last.evaluationSeconds);
    std::printf(
        "run %d: evaluation pass %.3f s, importance %.3f s, pruning curve %.3f s (%d "
        "passes), ablation %.3f s (%d passes); %lld sequences, %lld masked positions\n",
        r, last.evaluationSeconds, last.importanceSeconds, last.pruningSeconds, last.pruningPasses,
        last.ablationSeconds, last.layers * last.heads, static_cast<long long>(last.sequences),
        static_cast<long long>(last.positions));
  }
  return {median(importance), median(pruning)};
}

/// One head's queries and keys over the first `tokens` tokens: [tokens, d] each.
std::pair<at::Tensor, at::Tensor> headVectors(const core::ActivationCache& c, int layer, int head,
                                              int tokens) {
  auto pick = [&](const at::Tensor& t) {  // [B, H, T, d] -> [B*T, d]
    return t.select(1, head).reshape({-1, t.size(-1)}).slice(0, 0, tokens).contiguous();
  };
  const auto prefix = "blocks." + std::to_string(layer) + ".attn.";
  return {pick(c.at(prefix + "q")), pick(c.at(prefix + "k"))};
}

double mapSeconds(const core::ActivationCache& c, int layer, int head, int tokens) {
  const auto [q, k] = headVectors(c, layer, head, tokens);
  const int d = static_cast<int>(q.size(1));
  return seconds([&] {
    analysis::queryKeyMap({q.data_ptr<float>(), static_cast<std::size_t>(q.numel())}, tokens,
                          {k.data_ptr<float>(), static_cast<std::size_t>(k.numel())}, tokens, d);
  });
}

std::pair<double, double> queryKeyMaps(const Options& o) {
  torch::manual_seed(1);
  torch::NoGradGuard noGrad;
  core::MaskedLanguageModel model(bench::bertBaseShape(), 30522, 0);
  model->eval();
  const int sequences = (o.tokens + 511) / 512;
  const auto ids = torch::randint(5, 30522, {sequences, 512}, torch::kLong);
  core::HookRequest request;
  request.capture("blocks.*.attn.q").capture("blocks.*.attn.k");
  core::HookSession hooks(request);
  const double captureS = seconds([&] {
    core::ForwardOptions forward;
    forward.hooks = &hooks;
    core::MlmOutput unused;
    model->encodeWith(ids, ids.ne(0), forward, unused);
  });
  const core::ActivationCache& cache = hooks.cache();
  std::printf("capturing queries and keys: %d x 512 tokens through 12 x 12 x 768: %.2f s\n",
              sequences, captureS);
  std::vector<double> one;
  for (int r = 0; r < o.repeats; ++r) one.push_back(mapSeconds(cache, 11, 0, o.tokens));
  const double all = seconds([&] {
    for (int l = 0; l < 12; ++l)
      for (int h = 0; h < 12; ++h) mapSeconds(cache, l, h, o.tokens);
  });
  std::printf("query-key map over %d tokens: one head %.3f s (median of %d), all 144 %.2f s\n",
              o.tokens, median(one), o.repeats, all);
  return {median(one), all};
}

double repaintMs(const analysis::HeadReport& heads, int repeats) {
  analysis::AnalysisReport report;
  report.heads = heads;
  const figures::LabelledReport run{&report, "bench", "bench"};
  widgets::MatrixHeatmap map;
  widgets::ScatterPlot curves;
  for (QWidget* w : {static_cast<QWidget*>(&map), static_cast<QWidget*>(&curves)}) {
    w->resize(1100, 500);
    w->show();
  }
  std::vector<double> ms;
  for (int r = 0; r < repeats + 1; ++r) {
    const double s = seconds([&] {
      figures::drawHeadImportance(map, run);
      figures::drawPruningCurves(curves, {run});
      map.replotNow();  // the GUI queues its redraw; here it is drawn and painted at once
      curves.replotNow();
      map.grab();
      curves.grab();
    });
    if (r > 0) ms.push_back(1000 * s);  // the first: fonts and caches warming
  }
  return median(ms);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--run") == 0) o.run = argv[i + 1];
    if (std::strcmp(argv[i], "--repeats") == 0) o.repeats = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--tokens") == 0) o.tokens = std::max(2, std::atoi(argv[i + 1]));
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  const Options o = parse(argc, argv);
  if (o.run.empty()) {
    std::fprintf(stderr, "usage: bench_heads --run RUN_DIR [--repeats R] [--tokens N]\n");
    return 2;
  }
  // As attnlab-cli: every core (LibTorch alone would leave one here).
  std::printf("LibTorch threads: %d\n", core::configureIntraOpThreads(0));
  analysis::HeadReport heads;
  const auto [importance, pruning] = importanceAndPruning(o, heads);
  std::printf(
      "importance / evaluation pass: %.2f (bound 2); pruning curve / evaluation pass: "
      "%.2f (bound 12)\n",
      importance, pruning);
  const double repaint = repaintMs(heads, o.repeats);
  std::printf("Heads and Pruning figures drawn and painted: %.1f ms (bound 50)\n", repaint);
  const auto [one, all] = queryKeyMaps(o);
  std::printf("importance_vs_eval=%.2f pruning_vs_eval=%.2f qk_map_s=%.3f qk_all_s=%.2f\n",
              importance, pruning, one, all);
  return 0;
}
