#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <optional>

namespace attnlab::core {

class MaskedLanguageModelImpl;
class MlmBatcher;
class TrainingControl;

/// MLM loss (nats, mean over selected positions) and accuracy on the validation split.
struct EvaluationResult {
  double loss = 0.0;
  double accuracy = 0.0;
};

/// Runs the first `batches` validation batches in evaluation mode (no dropout, no
/// gradients) and puts the model back in training mode. Returns nothing when there is no
/// validation data, or when `control` asks to stop between batches (no partial result is
/// reported).
std::optional<EvaluationResult> evaluateMlm(MaskedLanguageModelImpl& model,
                                            const MlmBatcher& validation, std::int64_t batches,
                                            c10::Device device,
                                            const TrainingControl* control = nullptr);

}  // namespace attnlab::core
