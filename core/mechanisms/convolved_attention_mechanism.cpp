// Convolved attention (Dufter et al. 2020): a 1-D or 2-D convolution over each head's
// attention matrix after the softmax. docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"

namespace attnlab::core {

namespace {

constexpr MechanismName kConvName = *findMechanismName("conv");

class ConvolvedAttention : public AttentionMechanism {
 public:
  ConvolvedAttention() : AttentionMechanism(identityOf(kConvName, MechanismStage::Probabilities)) {}
  bool enabled(const RunConfig& c) const override {
    return c.attention.conv != ConvAttention::None;
  }
  std::string summary(const RunConfig& c) const override {
    return "convolved attention " + choiceText(c.attention.conv);
  }
};

}  // namespace

const AttentionMechanism& convolvedAttentionMechanism() {
  static const ConvolvedAttention instance;
  return instance;
}

}  // namespace attnlab::core
