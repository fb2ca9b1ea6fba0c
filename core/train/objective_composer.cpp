#include "core/train/objective_composer.h"

#include "core/model/masked_lm.h"
#include "core/objectives/asa_objective.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"

#include <torch/torch.h>

#include <algorithm>

namespace attnlab::core {

GuidanceTokens guidanceTokensFor(const SentencePieceTokenizer& tokenizer) {
  GuidanceTokens tokens;
  tokens.delimiterIds = {tokenizer.specialIds().bos, tokenizer.specialIds().eos};
  for (const char* piece : {".", "\xE2\x96\x81."}) {  // "." and "▁."
    const int id = tokenizer.pieceToId(piece);
    if (id != tokenizer.specialIds().unk) tokens.periodIds.push_back(id);
  }
  return tokens;
}

ObjectiveComposer::ObjectiveComposer(const RunConfig& config, int layers, int heads,
                                     GuidanceTokens tokens)
    : m_config(config),
      m_guidance(config.attention.guidance.enabled),
      m_asa(config.attention.asa.enabled),
      m_tokens(std::move(tokens)) {
  m_patterns.resize(static_cast<size_t>(layers));
  if (m_guidance) {
    const auto guided = guidedLayers(config.attention.guidance, layers);
    const auto heads_ = assignGuidanceHeads(config.attention.guidance, heads);
    for (int l = 0; l < layers; ++l) {
      if (guided[static_cast<size_t>(l)]) m_patterns[static_cast<size_t>(l)] = heads_;
    }
    for (const auto p : heads_) {
      if (p != GuidancePattern::None &&
          std::find(m_patternsInUse.begin(), m_patternsInUse.end(), p) == m_patternsInUse.end()) {
        m_patternsInUse.push_back(p);
      }
    }
  }
}

std::vector<std::string> ObjectiveComposer::scalarNames() const {
  std::vector<std::string> names;
  if (m_guidance) {
    names.push_back("guidance/loss");
    names.push_back("guidance/weight");
    for (const auto p : m_patternsInUse)
      names.push_back(std::string("guidance/") + guidancePatternName(p));
  }
  if (m_asa) {
    names.insert(names.end(), {"asa/token_kl", "asa/sentence_kl", "asa/penalty"});
  }
  if (m_guidance || m_asa) names.push_back("train/total_loss");
  return names;
}

StepOutcome ObjectiveComposer::compute(MaskedLanguageModelImpl& model, const at::Tensor& inputIds,
                                       const at::Tensor& attentionMask, const at::Tensor& labels,
                                       std::int64_t step) const {
  StepOutcome outcome;
  ForwardOptions clean;
  clean.keepGuidanceProbabilities = m_guidance;
  clean.wantLogits = m_asa;
  MlmOutput out = model.forward(inputIds, attentionMask, labels, clean);
  outcome.mlm = out.loss.detach();
  outcome.correct = out.correct;
  outcome.predicted = out.predicted;
  at::Tensor total = out.loss;
  if (out.squeezeWeights.defined()) outcome.squeezeWeights = out.squeezeWeights.detach().mean(0);

  if (m_guidance) {
    const auto& g = m_config.attention.guidance;
    outcome.guidanceWeight = guidanceWeight(g, step, m_config.schedule.steps);
    const GuidanceLoss loss =
        guidanceLoss(out.guidanceProbabilities, m_patterns, inputIds, attentionMask, m_tokens,
                     g.edgeRows == "uniform", g.loss == "frobenius");
    total = total + outcome.guidanceWeight * loss.total;
    outcome.scalars["guidance/loss"] = loss.total.detach();
    for (const auto& [pattern, part] : loss.perPattern) {
      outcome.scalars[std::string("guidance/") + guidancePatternName(pattern)] = part;
    }
  }

  if (m_asa) {
    const auto& a = m_config.attention.asa;
    ForwardOptions adversarial;
    adversarial.adversarial = true;
    adversarial.wantLogits = true;
    adversarial.computeLoss = false;  // only its logits enter the KL terms
    adversarial.adversary.gumbel = a.binarize == "gumbel";
    adversarial.adversary.temperature = a.gumbelTemperature;
    // A second pass with its own dropout; the adversaries mask its attention.
    MlmOutput adv = model.forward(inputIds, attentionMask, labels, adversarial);
    const bool symmetric = a.kl == "symmetric";
    const auto tokenKl = predictionKl(out.selectedLogits, adv.selectedLogits, symmetric);
    const auto sentenceKl = predictionKl(out.firstLogits, adv.firstLogits, symmetric);
    const auto penalty = maskPenalty(adv.adversarialMasks, a.tau, a.penalty == "tau_squared");
    total = total + tokenKl + sentenceKl + penalty;
    outcome.scalars["asa/token_kl"] = tokenKl.detach();
    outcome.scalars["asa/sentence_kl"] = sentenceKl.detach();
    outcome.scalars["asa/penalty"] = penalty.detach();
    std::vector<at::Tensor> proportions;
    for (const auto& m : adv.adversarialMasks)
      proportions.push_back(maskingProportion(m, attentionMask));
    outcome.maskProportion = torch::stack(proportions).to(torch::kFloat);
  }
  outcome.total = total;
  if (m_guidance || m_asa) outcome.scalars["train/total_loss"] = total.detach();
  return outcome;
}

}  // namespace attnlab::core
