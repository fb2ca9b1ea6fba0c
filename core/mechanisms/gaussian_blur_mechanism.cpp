// Gaussian blurring (SesameBERT, Su & Cheng 2019): a fixed Gaussian kernel along the
// sequence on the attention context (or the values). docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"

namespace attnlab::core {

namespace {

class GaussianBlur : public AttentionMechanism {
 public:
  std::string_view id() const override { return "blur"; }
  std::string_view title() const override {
    return "Gaussian blurring (SesameBERT, Su & Cheng 2019)";
  }
  std::string_view docsAnchor() const override { return "docs/variants.md#gaussian-blur"; }
  // Context by default (the official code); the `values` option acts at the projections.
  MechanismStage stage() const override { return MechanismStage::Context; }
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
