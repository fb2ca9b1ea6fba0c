#include "core/train/objective_composer.h"

#include "core/model/masked_lm.h"
#include "core/tokenizer/tokenizer.h"

#include <torch/torch.h>

namespace attnlab::core {

GuidanceTokens guidanceTokensFor(const Tokenizer& tokenizer) {
  GuidanceTokens tokens;
  tokens.delimiterIds = {tokenizer.specialIds().bos, tokenizer.specialIds().eos};
  for (const int id : periodIds(tokenizer)) tokens.periodIds.push_back(id);
  return tokens;
}

ObjectiveComposer::ObjectiveComposer(const RunConfig& config, GuidanceTokens tokens)
    : m_mechanisms(enabledMechanisms(config)) {
  for (const auto* m : m_mechanisms) {
    if (auto term = m->objective(config, tokens)) m_terms.push_back(std::move(term));
  }
}

ObjectiveComposer::~ObjectiveComposer() = default;

StepOutcome ObjectiveComposer::compute(MaskedLanguageModelImpl& model, const at::Tensor& inputIds,
                                       const at::Tensor& attentionMask, const at::Tensor& labels,
                                       std::int64_t step, BatchPadding padding) const {
  StepOutcome outcome;
  ForwardOptions clean;
  clean.padding = padding;
  for (const auto& term : m_terms) term->requestFromCleanPass(clean);
  const MlmOutput out = model.forward(inputIds, attentionMask, labels, clean);
  outcome.mlm = out.loss;  // attached: a step of several micro-batches reweights it
  outcome.correct = out.correct;
  outcome.predicted = out.predicted;
  for (const auto* m : m_mechanisms) m->measureCleanPass(out, outcome.quantities);

  at::Tensor total = out.loss;
  const ObjectiveInputs inputs{model, inputIds, attentionMask, labels, step, out};
  for (const auto& term : m_terms) total = total + term->compute(inputs, outcome.quantities);
  outcome.total = total;
  if (!m_terms.empty()) outcome.quantities["train/total_loss"] = total.detach();
  return outcome;
}

}  // namespace attnlab::core
