#pragma once

#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/model/batch_padding.h"
#include "core/objectives/attention_guidance.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attnlab::core {

class MaskedLanguageModelImpl;
class Tokenizer;

/// One training micro-batch's losses. Everything but `total` is detached and stays on the
/// device; the trainer reads it once per logging interval.
struct StepOutcome {
  at::Tensor total;      ///< what backward() runs on
  at::Tensor mlm;        ///< MLM loss of the clean pass (with its graph; part of `total`)
  at::Tensor correct;    ///< clean pass: correctly predicted selected positions
  at::Tensor predicted;  ///< clean pass: selected positions
  /// The mechanisms' IntervalMean quantities of this micro-batch, by logged name (see
  /// AttentionMechanism::logged), plus "train/total_loss" when any term was added.
  QuantityValues quantities;
};

/// Composes the pretraining objective of a run from its config: MLM on a clean pass, plus
/// the objective term of every enabled mechanism that has one (attention guidance on the
/// clean pass's probabilities; ASA's adversarial pass and KL terms), in registry order.
class ObjectiveComposer {
 public:
  /// `tokens`: the ids token-pattern terms look for (guidanceTokensFor(tokenizer)).
  ObjectiveComposer(const RunConfig& config, GuidanceTokens tokens);
  ~ObjectiveComposer();

  /// `padding`: BatchPadding::None when every position of the batch is real (the clean
  /// pass then attends without a padding bias).
  StepOutcome compute(MaskedLanguageModelImpl& model, const at::Tensor& inputIds,
                      const at::Tensor& attentionMask, const at::Tensor& labels, std::int64_t step,
                      BatchPadding padding = BatchPadding::Some) const;

  /// True when some mechanism adds to the loss (then "train/total_loss" is logged).
  bool addsTerms() const { return !m_terms.empty(); }

 private:
  std::vector<const AttentionMechanism*> m_mechanisms;  // enabled ones
  std::vector<std::unique_ptr<ObjectiveTerm>> m_terms;
};

/// [Delim] = <s> and </s>; [Period] = the pieces "." and "▁." when the vocabulary has them.
GuidanceTokens guidanceTokensFor(const Tokenizer& tokenizer);

}  // namespace attnlab::core
