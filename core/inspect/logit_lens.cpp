#include "core/inspect/logit_lens.h"

#include "core/model/masked_lm.h"
#include "core/runtime/simd_clones.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>

namespace attnlab::core {

namespace {

int rowCount(const LensInput& input) {
  return static_cast<int>(input.layerOutputs.size()) + (input.combinedOutput ? 1 : 0);
}

/// Logits [N, V] (float32) of row `r` at the given flat positions: a layer, or the output
/// last. One row at a time: at 512 tokens and a 30k vocabulary a row is 60 MB.
at::Tensor rowLogits(MaskedLanguageModelImpl& model, const LensInput& input,
                     const at::Tensor& positions, int r) {
  const auto hidden = input.finalHidden.size(-1);
  const bool isOutput = r == static_cast<int>(input.layerOutputs.size());
  // The output row: the head on what it really reads (identical to the last layer's row
  // unless SesameBERT combined the layers).
  const auto& states = isOutput ? input.finalHidden : input.layerOutputs[static_cast<size_t>(r)];
  const auto rows = states.reshape({-1, hidden}).index_select(0, positions);
  return (isOutput ? model.logits(rows) : model.lensLogits(rows)).to(torch::kFloat);
}

/// Log-probabilities [N, V] (float64) of row `r`, for the per-sentence view.
at::Tensor rowLogProbabilities(MaskedLanguageModelImpl& model, const LensInput& input,
                               const at::Tensor& positions, int r) {
  return torch::log_softmax(rowLogits(model, input, positions, r).to(torch::kDouble), -1);
}

/// Tokens scored strictly above the target: 0 when it is the top prediction. On logits or
/// log-probabilities alike (the same order).
at::Tensor ranksOf(const at::Tensor& scores, const at::Tensor& targets) {
  const auto own = scores.gather(-1, targets.unsqueeze(-1));
  return scores.gt(own).sum(-1);
}

/// softmax(y) and log-sum-exp(y) per row of the output's logits.
struct Softmax {
  at::Tensor probabilities;  // [N, V] float32
  at::Tensor logSumExp;      // [N] float32
};

Softmax softmaxOf(const at::Tensor& logits) {
  const auto top = std::get<0>(logits.max(-1, true));
  auto e = (logits - top).exp_();
  const auto sum = e.sum(-1, true);
  return {e.div_(sum).contiguous(), (top + sum.log()).squeeze(-1).contiguous()};
}

/// The sums over one position's vocabulary: sum e, sum e x, sum q (y - x), #{x > own}. float
/// partial sums in SIMD lanes (-fopenmp-simd on this file): over 8,000 to 30,000 terms they
/// lose about 1e-6 relative.
struct VocabularySums {
  float sum = 0, weighted = 0, gap = 0;
  std::int64_t above = 0;
};

ATTNLAB_HOT VocabularySums vocabularySums(const float* x, const float* e, const float* y,
                                          const float* q, std::int64_t vocabulary, float own) {
  float sum = 0, weighted = 0, gap = 0;
  std::int64_t above = 0;
#pragma omp simd reduction(+ : sum, weighted, gap, above)
  for (std::int64_t v = 0; v < vocabulary; ++v) {
    sum += e[v];
    weighted += e[v] * x[v];
    gap += q[v] * (y[v] - x[v]);
    above += x[v] > own ? 1 : 0;
  }
  return {sum, weighted, gap, above};
}

/// One lens row's statistics at N positions: the exponentials by LibTorch's vectorised exp,
/// then one pass over each position's vocabulary for every sum, so that no other
/// [N, V] temporary is made: the corpus summaries call this for every masked position.
///   entropy H(x) = lse(x) - sum_v p_v x_v,  p = softmax(x)
///   KL(out || x) = sum_v q_v (y_v - x_v) + lse(x) - lse(y),  q = softmax(y), y the output
///   rank = #{v : x_v > x_target} (on the logits: the same order as the probabilities)
struct RowStatistics {
  at::Tensor rank, entropy, kl;  // [N] int64, float32, float32
};

RowStatistics rowStatistics(const at::Tensor& logits, const at::Tensor& targets,
                            const at::Tensor& outputLogits, const Softmax& output, bool isOutput) {
  const auto n = logits.size(0), vocabulary = logits.size(1);
  const auto x = logits.contiguous();
  const auto top = std::get<0>(x.max(-1, true));
  const auto e = (x - top).exp_().contiguous();
  RowStatistics out{torch::empty({n}, torch::kLong), torch::empty({n}, torch::kFloat),
                    torch::empty({n}, torch::kFloat)};
  const auto target = targets.to(torch::kLong).contiguous();
  const float *xs = x.data_ptr<float>(), *es = e.data_ptr<float>(),
              *ys = outputLogits.data_ptr<float>(), *qs = output.probabilities.data_ptr<float>(),
              *tops = top.data_ptr<float>(), *lseY = output.logSumExp.data_ptr<float>();
  const std::int64_t* t = target.data_ptr<std::int64_t>();
  auto* rank = out.rank.data_ptr<std::int64_t>();
  float *entropy = out.entropy.data_ptr<float>(), *kl = out.kl.data_ptr<float>();
  at::parallel_for(0, n, 8, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      const float* xr = xs + i * vocabulary;
      const VocabularySums sums = vocabularySums(xr, es + i * vocabulary, ys + i * vocabulary,
                                                 qs + i * vocabulary, vocabulary, xr[t[i]]);
      const double lse = tops[i] + std::log(static_cast<double>(sums.sum));
      rank[i] = sums.above;
      entropy[i] = static_cast<float>(lse - static_cast<double>(sums.weighted) / sums.sum);
      // The output against itself is 0 by definition, not by rounding.
      kl[i] = isOutput ? 0.0f : static_cast<float>(sums.gap + lse - lseY[i]);
    }
  });
  return out;
}

}  // namespace

LensRows lensAt(MaskedLanguageModelImpl& model, const LensInput& input, const at::Tensor& positions,
                const at::Tensor& targets) {
  torch::NoGradGuard noGrad;
  const int count = rowCount(input);
  const auto outputLogits = rowLogits(model, input, positions, count - 1).contiguous();
  const Softmax output = softmaxOf(outputLogits);
  std::vector<at::Tensor> rank, entropy, kl;
  for (int r = 0; r < count; ++r) {
    const bool isOutput = r == count - 1;
    const auto logits = isOutput ? outputLogits : rowLogits(model, input, positions, r);
    RowStatistics row = rowStatistics(logits, targets, outputLogits, output, isOutput);
    rank.push_back(std::move(row.rank));
    entropy.push_back(std::move(row.entropy));
    kl.push_back(std::move(row.kl));
  }
  LensRows out;
  out.rank = torch::stack(rank);
  out.entropy = torch::stack(entropy);
  out.klToFinal = torch::stack(kl);
  out.outputRow = input.combinedOutput;
  return out;
}

LensPredictions lensPredictions(MaskedLanguageModelImpl& model, const LensInput& input,
                                const at::Tensor& targets, int top) {
  torch::NoGradGuard noGrad;
  const auto length = input.finalHidden.size(1);
  const auto positions = torch::arange(length, torch::kLong);
  const int count = rowCount(input);
  std::vector<at::Tensor> ids, probabilities, rank, own;
  for (int r = 0; r < count; ++r) {
    const auto row = rowLogProbabilities(model, input, positions, r);
    const auto best = row.topk(std::min<std::int64_t>(top, row.size(-1)), -1);
    ids.push_back(std::get<1>(best));
    probabilities.push_back(std::get<0>(best).exp().to(torch::kFloat));
    rank.push_back(ranksOf(row, targets));
    own.push_back(row.gather(-1, targets.unsqueeze(-1)).squeeze(-1).exp().to(torch::kFloat));
  }
  LensPredictions out;
  out.topIds = torch::stack(ids).contiguous();
  out.topProbabilities = torch::stack(probabilities).contiguous();
  out.targetRank = torch::stack(rank).contiguous();
  out.targetProbability = torch::stack(own).contiguous();
  out.outputRow = input.combinedOutput;
  return out;
}

}  // namespace attnlab::core
