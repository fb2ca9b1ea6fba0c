// Adversarial self-attention (Wu et al. 2023): per-layer adversaries mask attention in a
// second pass; KL terms tie its predictions to the clean pass. docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"
#include "core/model/masked_lm.h"
#include "core/objectives/asa_objective.h"

#include <torch/torch.h>

namespace attnlab::core {

namespace {

constexpr MechanismName kAsaName = *findMechanismName("asa");

// kl_reduction = batchmean: the token KL as the official code's
// KLDivLoss(reduction="batchmean") on the [B, T, V] logits, over every real position and
// divided by B; masked_mean: the mean over the masked-LM positions.
bool tokenKlPerSequence(const AsaConfig& config) {
  switch (config.klReduction) {
    case AsaKlReduction::MaskedMean:
      return false;
    case AsaKlReduction::BatchMean:
      return true;
  }
  return false;
}

class AsaTerm : public ObjectiveTerm {
 public:
  explicit AsaTerm(const AsaConfig& config) : m_config(config) {}

  void requestFromCleanPass(ForwardOptions& options) const override {
    options.wantLogits = true;
    options.wantRealLogits = perSequence();
  }

  at::Tensor compute(const ObjectiveInputs& in, QuantityValues& measured) const override {
    ForwardOptions adversarial;
    adversarial.adversarial = true;
    adversarial.wantLogits = true;
    adversarial.wantRealLogits = perSequence();
    adversarial.computeLoss = false;  // only its logits enter the KL terms
    adversarial.adversary.gumbel = m_config.binarize == AsaBinarize::Gumbel;
    adversarial.adversary.temperature = m_config.gumbelTemperature;
    // A second pass with its own dropout; the adversaries mask its attention.
    const MlmOutput adv = in.model.forward(in.inputIds, in.attentionMask, in.labels, adversarial);
    const bool symmetric = m_config.kl == AsaKl::Symmetric;
    const auto tokenKl = tokenDivergence(in, adv, symmetric);
    const auto sentenceKl = predictionKl(in.clean.firstLogits, adv.firstLogits, symmetric);
    const auto penalty =
        maskPenalty(adv.adversarialMasks, m_config.tau, m_config.penalty == AsaPenalty::TauSquared);
    measured["asa/token_kl"] = tokenKl.detach();
    measured["asa/sentence_kl"] = sentenceKl.detach();
    measured["asa/penalty"] = penalty.detach();
    std::vector<at::Tensor> proportions;
    for (const auto& m : adv.adversarialMasks) {
      proportions.push_back(maskingProportion(m, in.attentionMask));
    }
    measured["asa/mask_proportion"] = torch::stack(proportions).to(torch::kFloat);
    return tokenKl + sentenceKl + penalty;
  }

 private:
  bool perSequence() const { return tokenKlPerSequence(m_config); }

  at::Tensor tokenDivergence(const ObjectiveInputs& in, const MlmOutput& adv,
                             bool symmetric) const {
    if (perSequence()) {
      return predictionKlPerSequence(in.clean.realLogits, adv.realLogits, symmetric,
                                     in.inputIds.size(0));
    }
    return predictionKl(in.clean.selectedLogits, adv.selectedLogits, symmetric);
  }

  AsaConfig m_config;
};

class AdversarialAttention : public AttentionMechanism {
 public:
  AdversarialAttention() : AttentionMechanism(identityOf(kAsaName, MechanismStage::Mask)) {}
  bool enabled(const RunConfig& c) const override { return c.attention.asa.enabled; }

  std::string summary(const RunConfig& c) const override {
    const auto& a = c.attention.asa;
    return "adversarial self-attention (binarize " + choiceText(a.binarize) + ", kl " +
           choiceText(a.kl) + ", kl_reduction " + choiceText(a.klReduction) + ", penalty " +
           choiceText(a.penalty) + ")";
  }

  std::vector<LoggedQuantity> logged(const RunConfig& c) const override {
    const bool perSequence = tokenKlPerSequence(c.attention.asa);
    return {
        {"asa/token_kl", LoggedShape::Scalar, LoggedReduction::IntervalMean, "nats",
         perSequence ? "KL between clean and adversarial predictions, summed over the real "
                       "positions, per sequence"
                     : "KL between clean and adversarial predictions at the masked-LM positions"},
        {"asa/sentence_kl", LoggedShape::Scalar, LoggedReduction::IntervalMean, "nats",
         "KL between clean and adversarial predictions at the first position"},
        {"asa/penalty", LoggedShape::Scalar, LoggedReduction::IntervalMean, "loss",
         "mask penalty as added to the loss (tau or tau^2 times the masked cells)"},
        {"asa/mask_proportion", LoggedShape::PerLayer, LoggedReduction::IntervalMean, "fraction",
         "ASA: share of real (query, key) cells the adversary masks, per layer"},
    };
  }

  std::unique_ptr<ObjectiveTerm> objective(const RunConfig& c,
                                           const GuidanceTokens&) const override {
    return std::make_unique<AsaTerm>(c.attention.asa);
  }
};

}  // namespace

const AttentionMechanism& adversarialAttentionMechanism() {
  static const AdversarialAttention instance;
  return instance;
}

}  // namespace attnlab::core
