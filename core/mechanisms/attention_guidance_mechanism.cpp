// Attention guidance (Deshpande & Narasimhan 2020): a loss pulling chosen heads towards
// fixed patterns ([Next], [Prev], [First], [Delim], [Period]). docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"
#include "core/model/masked_lm.h"
#include "core/objectives/attention_guidance.h"

#include <torch/torch.h>

#include <algorithm>

namespace attnlab::core {

namespace {

constexpr MechanismName kGuidanceName = *findMechanismName("guidance");

/// The patterns any guided head uses, in first-use order (the log declares one scalar each).
std::vector<GuidancePattern> patternsInUse(const RunConfig& c) {
  std::vector<GuidancePattern> used;
  for (const auto p : assignGuidanceHeads(c.attention.guidance, c.model.heads)) {
    if (p != GuidancePattern::None && std::find(used.begin(), used.end(), p) == used.end()) {
      used.push_back(p);
    }
  }
  return used;
}

class GuidanceTerm : public ObjectiveTerm {
 public:
  GuidanceTerm(const RunConfig& c, GuidanceTokens tokens)
      : m_config(c.attention.guidance),
        m_totalSteps(c.schedule.steps),
        m_tokens(std::move(tokens)) {
    m_patterns.resize(static_cast<std::size_t>(c.model.layers));
    const auto guided = guidedLayers(m_config, c.model.layers);
    const auto heads = assignGuidanceHeads(m_config, c.model.heads);
    for (int l = 0; l < c.model.layers; ++l) {
      if (guided[static_cast<std::size_t>(l)]) m_patterns[static_cast<std::size_t>(l)] = heads;
    }
  }

  void requestFromCleanPass(ForwardOptions& options) const override {
    options.keepGuidanceProbabilities = true;
  }

  at::Tensor compute(const ObjectiveInputs& in, QuantityValues& measured) const override {
    const double weight = guidanceWeight(m_config, in.step, m_totalSteps);
    const GuidanceLoss loss =
        guidanceLoss(in.clean.guidanceProbabilities, m_patterns, in.inputIds, in.attentionMask,
                     m_tokens, m_config.edgeRows == GuidanceEdgeRows::Uniform,
                     m_config.loss == GuidanceLossForm::Frobenius);
    measured["guidance/loss"] = loss.total.detach();
    for (const auto& [pattern, part] : loss.perPattern) {
      measured[std::string("guidance/") + guidancePatternName(pattern)] = part;
    }
    return weight * loss.total;
  }

 private:
  GuidanceConfig m_config;
  std::int64_t m_totalSteps;
  GuidanceTokens m_tokens;
  std::vector<std::vector<GuidancePattern>> m_patterns;
};

class AttentionGuidance : public AttentionMechanism {
 public:
  AttentionGuidance()
      : AttentionMechanism(identityOf(kGuidanceName, MechanismStage::ObjectiveOnly)) {}
  bool enabled(const RunConfig& c) const override { return c.attention.guidance.enabled; }

  std::string summary(const RunConfig& c) const override {
    const auto& g = c.attention.guidance;
    return "guidance (loss " + choiceText(g.loss) + ", schedule " + choiceText(g.schedule) +
           ", edge rows " + choiceText(g.edgeRows) + ", layers " + g.layers + ")";
  }

  std::vector<LoggedQuantity> logged(const RunConfig& c) const override {
    std::vector<LoggedQuantity> out = {
        {"guidance/loss", LoggedShape::Scalar, LoggedReduction::IntervalMean, "loss",
         "guidance loss before weighting (sum over guided layers and patterns)"},
        {"guidance/weight", LoggedShape::Scalar, LoggedReduction::AtLogTime, "weight",
         "alpha(t), the weight of the guidance loss at the logged step"},
    };
    for (const auto p : patternsInUse(c)) {
      out.push_back({std::string("guidance/") + guidancePatternName(p), LoggedShape::Scalar,
                     LoggedReduction::IntervalMean, "loss",
                     std::string("guidance loss of the [") + guidancePatternName(p) + "] heads"});
    }
    return out;
  }

  std::unique_ptr<ObjectiveTerm> objective(const RunConfig& c,
                                           const GuidanceTokens& tokens) const override {
    return std::make_unique<GuidanceTerm>(c, tokens);
  }

  void sample(const RunConfig& c, MaskedLanguageModelImpl&, std::int64_t completedSteps,
              std::map<std::string, std::vector<double>>& values) const override {
    // The weight the last step of the interval used (steps are 0-based inside the step).
    values["guidance/weight"] = {
        guidanceWeight(c.attention.guidance, completedSteps - 1, c.schedule.steps)};
  }
};

}  // namespace

const AttentionMechanism& attentionGuidanceMechanism() {
  static const AttentionGuidance instance;
  return instance;
}

}  // namespace attnlab::core
