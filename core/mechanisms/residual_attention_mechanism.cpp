// RealFormer (He et al. 2021): each layer's pre-softmax scores add the previous layers'
// running sum (or mean). docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"

namespace attnlab::core {

namespace {

constexpr MechanismName kResidualName = *findMechanismName("residual");

class ResidualAttention : public AttentionMechanism {
 public:
  ResidualAttention() : AttentionMechanism(identityOf(kResidualName, MechanismStage::Scores)) {}
  bool enabled(const RunConfig& c) const override {
    return c.attention.residual != ResidualScores::None;
  }
  std::string summary(const RunConfig& c) const override {
    return "residual attention (running " + choiceText(c.attention.residual) + ")";
  }
};

}  // namespace

const AttentionMechanism& residualAttentionMechanism() {
  static const ResidualAttention instance;
  return instance;
}

}  // namespace attnlab::core
