// Gaussian blurring (SesameBERT, Su & Cheng 2019): a fixed Gaussian kernel along the
// sequence on the attention context (or the values). docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"

namespace attnlab::core {

namespace {

constexpr MechanismName kBlurName = *findMechanismName("blur");

class GaussianBlur : public AttentionMechanism {
 public:
  GaussianBlur() : AttentionMechanism(identityOf(kBlurName, MechanismStage::Context)) {}
  // Stage: the context by default (the official code); `values` acts at the projections.
  bool enabled(const RunConfig& c) const override {
    return c.attention.blur.target != BlurTarget::None;
  }
  std::string summary(const RunConfig& c) const override {
    return "Gaussian blur on " + choiceText(c.attention.blur.target);
  }
};

}  // namespace

const AttentionMechanism& gaussianBlurMechanism() {
  static const GaussianBlur instance;
  return instance;
}

}  // namespace attnlab::core
