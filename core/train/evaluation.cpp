#include "core/train/evaluation.h"

#include "core/data/mlm_batcher.h"
#include "core/model/masked_lm.h"
#include "core/train/training_control.h"

#include <torch/torch.h>

#include <algorithm>

namespace attnlab::core {

std::optional<EvaluationResult> evaluateMlm(MaskedLanguageModelImpl& model,
                                            const MlmBatcher& validation, std::int64_t batches,
                                            c10::Device device, const TrainingControl* control) {
  const std::int64_t n = std::min<std::int64_t>(batches, validation.batchesPerEpoch());
  if (n <= 0) return std::nullopt;
  torch::NoGradGuard noGrad;
  model.eval();
  struct TrainModeAgain {
    MaskedLanguageModelImpl& m;
    ~TrainModeAgain() { m.train(); }
  } restore{model};
  auto lossSum = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device));
  auto correct = torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(device));
  auto predicted = torch::zeros_like(correct);
  for (std::int64_t k = 0; k < n; ++k) {
    if (control != nullptr && control->stopRequested()) return std::nullopt;
    const auto batch = validation.batch(k);
    const auto out = model.forward(batch.inputIds.to(device), batch.attentionMask.to(device),
                                   batch.labels.to(device));
    lossSum += out.loss.to(torch::kDouble) * out.predicted;
    correct += out.correct;
    predicted += out.predicted;
  }
  const double count = static_cast<double>(predicted.item<std::int64_t>());
  return EvaluationResult{lossSum.item<double>() / count,
                          static_cast<double>(correct.item<std::int64_t>()) / count};
}

}  // namespace attnlab::core
