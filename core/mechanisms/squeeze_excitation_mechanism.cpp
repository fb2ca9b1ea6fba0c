// Squeeze-and-Excitation over the encoder layers (SesameBERT, Su & Cheng 2019): learned
// per-layer weights combine the stack's outputs. docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"
#include "core/model/masked_lm.h"

namespace attnlab::core {

namespace {

constexpr MechanismName kSqueezeName = *findMechanismName("squeeze");

class SqueezeExcitation : public AttentionMechanism {
 public:
  SqueezeExcitation()
      : AttentionMechanism(identityOf(kSqueezeName, MechanismStage::AcrossLayers)) {}
  bool enabled(const RunConfig& c) const override { return c.attention.squeeze.enabled; }
  std::string summary(const RunConfig& c) const override {
    return "squeeze-excitation (" + choiceText(c.attention.squeeze.combine) + ")";
  }
  std::vector<LoggedQuantity> logged(const RunConfig&) const override {
    return {{"squeeze/weights", LoggedShape::PerLayer, LoggedReduction::IntervalMean, "weight",
             "SesameBERT: excitation output s_l per encoder layer (batch mean)"}};
  }
  void measureCleanPass(const MlmOutput& clean, QuantityValues& measured) const override {
    if (clean.squeezeWeights.defined()) {
      measured["squeeze/weights"] = clean.squeezeWeights.detach().mean(0);
    }
  }
};

}  // namespace

const AttentionMechanism& squeezeExcitationMechanism() {
  static const SqueezeExcitation instance;
  return instance;
}

}  // namespace attnlab::core
