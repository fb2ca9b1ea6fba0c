// Gated attention (Qiu et al. 2025): each head's output times sigmoid(X W_theta + b) of the
// block's input, before the output projection. docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"
#include "core/model/masked_lm.h"

namespace attnlab::core {

namespace {

constexpr MechanismName kOutputGateName = *findMechanismName("output_gate");

class OutputGateMechanism : public AttentionMechanism {
 public:
  OutputGateMechanism()
      : AttentionMechanism(identityOf(kOutputGateName, MechanismStage::Context)) {}
  bool enabled(const RunConfig& c) const override {
    return c.attention.outputGate != OutputGate::None;
  }
  std::string summary(const RunConfig& c) const override {
    return "output gate (" + choiceText(c.attention.outputGate) + ")";
  }
  std::vector<LoggedQuantity> logged(const RunConfig&) const override {
    return {{"gate/mean", LoggedShape::PerLayerHead, LoggedReduction::IntervalMean, "fraction",
             "mean output gate sigmoid(X W + b) per layer and head over the batch's positions "
             "(and channels): how much of each head's output passes"}};
  }
  void measureCleanPass(const MlmOutput& clean, QuantityValues& measured) const override {
    if (clean.gateMeans.defined()) measured["gate/mean"] = clean.gateMeans;
  }
};

}  // namespace

const AttentionMechanism& outputGateMechanism() {
  static const OutputGateMechanism instance;
  return instance;
}

}  // namespace attnlab::core
