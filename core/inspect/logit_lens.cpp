#include "core/inspect/logit_lens.h"

#include "core/model/masked_lm.h"

#include <torch/torch.h>

namespace attnlab::core {

namespace {

int rowCount(const LensInput& input) {
  return static_cast<int>(input.layerOutputs.size()) + (input.combinedOutput ? 1 : 0);
}

/// Log-probabilities [N, V] (float64) of row `r` at the given flat positions: a layer, or
/// the output last. One row at a time: at 512 tokens and a 30k vocabulary a row is 120 MB.
at::Tensor rowLogProbabilities(MaskedLanguageModelImpl& model, const LensInput& input,
                               const at::Tensor& positions, int r) {
  const auto hidden = input.finalHidden.size(-1);
  const bool isOutput = r == static_cast<int>(input.layerOutputs.size());
  // The output row: the head on what it really reads (identical to the last layer's row
  // unless SesameBERT combined the layers).
  const auto& states = isOutput ? input.finalHidden : input.layerOutputs[static_cast<size_t>(r)];
  const auto rows = states.reshape({-1, hidden}).index_select(0, positions);
  const auto logits = isOutput ? model.logits(rows) : model.lensLogits(rows);
  return torch::log_softmax(logits.to(torch::kDouble), -1);
}

/// Tokens scored strictly above the target: 0 when it is the top prediction.
at::Tensor ranksOf(const at::Tensor& logProbabilities, const at::Tensor& targets) {
  const auto own = logProbabilities.gather(-1, targets.unsqueeze(-1));
  return logProbabilities.gt(own).sum(-1);
}

}  // namespace

LensRows lensAt(MaskedLanguageModelImpl& model, const LensInput& input, const at::Tensor& positions,
                const at::Tensor& targets) {
  torch::NoGradGuard noGrad;
  const int count = rowCount(input);
  const auto final = rowLogProbabilities(model, input, positions, count - 1);
  const auto finalP = final.exp();
  std::vector<at::Tensor> rank, entropy, kl;
  for (int r = 0; r < count; ++r) {
    const auto row = r == count - 1 ? final : rowLogProbabilities(model, input, positions, r);
    rank.push_back(ranksOf(row, targets));
    entropy.push_back(-(row.exp() * row).sum(-1));
    kl.push_back((finalP * (final - row)).sum(-1));
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
