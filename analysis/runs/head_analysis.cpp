#include "analysis/runs/head_analysis.h"

#include "analysis/attention/beyond_weights_summaries.h"
#include "analysis/runs/evaluation_set.h"
#include "core/inspect/attention_inspector.h"
#include "core/tokenizer/tokenizer.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

namespace attnlab::analysis {

namespace {

/// One batch of the evaluation set with its masked positions replaced by <mask>.
struct MaskedBatch {
  at::Tensor ids;
  core::MaskedTargets masked;
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The evaluation set masked by the lens's rule, held in memory: every pass reads it again.
std::vector<MaskedBatch> maskedBatches(core::AttentionInspector& inspector, EvaluationSet& set,
                                       std::uint64_t seed, const std::atomic<bool>* cancel) {
  const auto& special = inspector.tokenizer().specialIds();
  const std::vector<std::int64_t> specialIds = {special.pad, special.bos, special.eos, special.mask,
                                                special.unk};
  std::vector<MaskedBatch> out;
  set.rewind();
  EvaluationBatch batch;
  std::int64_t first = 0;
  while (set.next(batch)) {
    throwIfCancelled(cancel, "masking the evaluation set");
    auto ids = batch.ids.to(torch::kLong).contiguous().clone();
    const auto B = ids.size(0), T = ids.size(1);
    std::vector<std::int64_t> positions, targets;
    for (std::int64_t b = 0; b < B; ++b) {
      std::int64_t* row = ids.data_ptr<std::int64_t>() + b * T;
      for (const int p : lensMaskPositions(row, batch.roles[static_cast<std::size_t>(b)].length,
                                           specialIds, seed, first + b)) {
        positions.push_back(b * T + p);
        targets.push_back(row[p]);
        row[p] = special.mask;
      }
    }
    first += B;
    if (positions.empty()) continue;
    out.push_back(
        {ids, {torch::tensor(positions, torch::kLong), torch::tensor(targets, torch::kLong)}});
  }
  if (out.empty())
    throw DataError("heads analysis", "no sequence of the evaluation set has a token to mask");
  return out;
}

/// One evaluation pass with `gates` [L, H] (undefined: none).
MaskedLmScore evaluate(core::AttentionInspector& inspector, const std::vector<MaskedBatch>& batches,
                       const at::Tensor& gates, const std::atomic<bool>* cancel,
                       const std::string& where) {
  double loss = 0;
  std::int64_t correct = 0, count = 0;
  for (const auto& b : batches) {
    throwIfCancelled(cancel, where);
    const auto r = inspector.gatedLoss(b.ids, b.masked, gates, false);
    loss += r.lossSum;
    correct += r.correct;
    count += r.count;
  }
  return {loss / static_cast<double>(count),
          static_cast<double>(correct) / static_cast<double>(count)};
}

/// E_x |dL(x)/dxi_h| over the sequences, one backward pass per batch.
void addImportance(core::AttentionInspector& inspector, const std::vector<MaskedBatch>& batches,
                   HeadReport& report, const AnalysisProgress& progress,
                   const std::atomic<bool>* cancel) {
  const int L = report.layers, H = report.heads;
  std::vector<double> sum(static_cast<std::size_t>(L * H), 0.0);
  std::int64_t sequences = 0, done = 0;
  for (const auto& b : batches) {
    throwIfCancelled(cancel, kPhaseHeadImportance);
    const auto r = inspector.gatedLoss(b.ids, b.masked, {}, true);
    const auto grad = r.gateGradient.abs().contiguous();  // [L, B, H] float64
    const auto* g = grad.data_ptr<double>();
    const auto* counts = r.sequenceCount.data_ptr<std::int64_t>();
    const auto B = grad.size(1);
    for (std::int64_t s = 0; s < B; ++s) {
      if (counts[s] == 0) continue;  // nothing masked: no loss, no gradient to average
      ++sequences;
      for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h)
          sum[static_cast<std::size_t>(l * H + h)] += g[(l * B + s) * H + h];
    }
    if (progress) progress(kPhaseHeadImportance, ++done, static_cast<std::int64_t>(batches.size()));
  }
  report.sequences = sequences;
  report.importanceRaw = sum;
  for (auto& v : report.importanceRaw) v /= static_cast<double>(sequences);
  report.importance = report.importanceRaw;
  for (int l = 0; l < L; ++l) {
    const auto first = report.importance.begin() + l * H;
    const double norm = std::sqrt(std::inner_product(first, first + H, first, 0.0));
    if (norm > 0) std::for_each(first, first + H, [norm](double& v) { v /= norm; });
  }
}

at::Tensor gatesWithout(const std::vector<int>& masked, std::size_t count, int layers, int heads) {
  auto gates = torch::ones({layers, heads}, torch::kFloat);
  auto* g = gates.data_ptr<float>();
  for (std::size_t i = 0; i < count; ++i) g[masked[i]] = 0.0f;
  return gates;
}

PruningCurve pruningCurve(core::AttentionInspector& inspector,
                          const std::vector<MaskedBatch>& batches, const HeadReport& report,
                          std::vector<int> order, std::string kind, std::uint64_t seed,
                          const std::vector<int>& points, const std::atomic<bool>* cancel) {
  PruningCurve curve{std::move(kind), seed, std::move(order), {}};
  const double total = report.layers * report.heads;
  for (const int k : points) {
    const MaskedLmScore score =
        k == 0 ? report.full
               : evaluate(inspector, batches,
                          gatesWithout(curve.heads, static_cast<std::size_t>(k), report.layers,
                                       report.heads),
                          cancel, std::string(kPhaseHeadPruning) + ", " + curve.order);
    curve.points.push_back({k, k / total, score});
  }
  return curve;
}

void addAblation(core::AttentionInspector& inspector, const std::vector<MaskedBatch>& batches,
                 HeadReport& report, const AnalysisProgress& progress,
                 const std::atomic<bool>* cancel) {
  const int count = report.layers * report.heads;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    // Appended, not concatenated: GCC 12 warns falsely (-Warray-bounds) on the + chain here.
    std::string where = kPhaseHeadAblation;
    where.append(", head ").append(std::to_string(i));
    const auto gates = gatesWithout({i}, 1, report.layers, report.heads);
    report.ablation.push_back(evaluate(inspector, batches, gates, cancel, where));
    if (progress) progress(kPhaseHeadAblation, i + 1, count);
  }
  report.ablationSeconds = secondsSince(start);
}

void addPruning(core::AttentionInspector& inspector, const std::vector<MaskedBatch>& batches,
                HeadReport& report, const HeadAnalysisOptions& options,
                const AnalysisProgress& progress, const std::atomic<bool>* cancel) {
  const auto points = pruningPoints(report.layers, report.heads, options.pruningStep);
  const auto curves = static_cast<std::int64_t>(1 + options.randomSeeds.size());
  const auto start = std::chrono::steady_clock::now();
  report.pruning.push_back(pruningCurve(
      inspector, batches, report, pruningOrder(report.importance, report.layers, report.heads),
      "importance", 0, points, cancel));
  report.pruningSeconds = secondsSince(start);
  report.pruningPasses =
      static_cast<int>(std::count_if(points.begin(), points.end(), [](int k) { return k > 0; }));
  if (progress) progress(kPhaseHeadPruning, 1, curves);
  for (const auto seed : options.randomSeeds) {
    report.pruning.push_back(pruningCurve(inspector, batches, report,
                                          randomPruningOrder(report.layers, report.heads, seed),
                                          "random", seed, points, cancel));
    if (progress)
      progress(kPhaseHeadPruning, static_cast<std::int64_t>(report.pruning.size()), curves);
  }
}

}  // namespace

HeadReport analyseHeads(core::AttentionInspector& inspector, EvaluationSet& set,
                        const HeadAnalysisOptions& options, const AnalysisProgress& progress,
                        const std::atomic<bool>* cancel) {
  HeadReport report;
  report.layers = inspector.config().model.layers;
  report.heads = inspector.config().model.heads;
  report.maskSeed = inspector.config().run.seed;
  const auto batches = maskedBatches(inspector, set, report.maskSeed, cancel);
  for (const auto& b : batches) report.positions += b.masked.positions.numel();

  auto start = std::chrono::steady_clock::now();
  report.full = evaluate(inspector, batches, {}, cancel, "heads: the full model");
  report.evaluationSeconds = secondsSince(start);
  start = std::chrono::steady_clock::now();
  addImportance(inspector, batches, report, progress, cancel);
  report.importanceSeconds = secondsSince(start);
  if (options.ablation) addAblation(inspector, batches, report, progress, cancel);
  if (options.pruning) addPruning(inspector, batches, report, options, progress, cancel);
  return report;
}

std::vector<int> pruningOrder(const std::vector<double>& scores, int layers, int heads) {
  std::vector<int> byScore(static_cast<std::size_t>(layers * heads));
  std::iota(byScore.begin(), byScore.end(), 0);
  std::stable_sort(byScore.begin(), byScore.end(), [&scores](int a, int b) {
    return scores[static_cast<std::size_t>(a)] < scores[static_cast<std::size_t>(b)];
  });
  std::vector<int> left(static_cast<std::size_t>(layers), heads), order;
  for (const int head : byScore) {
    int& inLayer = left[static_cast<std::size_t>(head / heads)];
    if (inLayer == 1) continue;  // the layer's last head stays
    --inLayer;
    order.push_back(head);
  }
  return order;
}

std::vector<int> randomPruningOrder(int layers, int heads, std::uint64_t seed) {
  std::vector<int> shuffled(static_cast<std::size_t>(layers * heads));
  std::iota(shuffled.begin(), shuffled.end(), 0);
  std::mt19937_64 rng(seed);
  for (std::size_t i = shuffled.size(); i > 1; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(shuffled[i - 1], shuffled[pick(rng)]);
  }
  // Ranks as scores: the shuffled position of each head.
  std::vector<double> rank(shuffled.size());
  for (std::size_t i = 0; i < shuffled.size(); ++i)
    rank[static_cast<std::size_t>(shuffled[i])] = static_cast<double>(i);
  return pruningOrder(rank, layers, heads);
}

std::vector<int> pruningPoints(int layers, int heads, double step) {
  const int total = layers * heads, most = layers * (heads - 1);
  std::vector<int> points;
  for (int i = 0;; ++i) {
    const int k = static_cast<int>(std::lround(i * step * total));
    if (k > most) break;
    if (points.empty() || k > points.back()) points.push_back(k);
    if (step <= 0) break;
  }
  if (points.empty() || points.back() < most) points.push_back(most);
  return points;
}

}  // namespace attnlab::analysis
