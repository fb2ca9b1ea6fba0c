// Direct position interactions (Dufter et al. 2020): trainable absolute and/or relative
// biases added to the scores, replacing position embeddings. docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"

namespace attnlab::core {

namespace {

constexpr MechanismName kPositionName = *findMechanismName("position");

class PositionInteractionsMechanism : public AttentionMechanism {
 public:
  PositionInteractionsMechanism()
      : AttentionMechanism(identityOf(kPositionName, MechanismStage::Scores)) {}
  bool enabled(const RunConfig& c) const override {
    return c.attention.position.mode != PositionMode::None;
  }
  std::string summary(const RunConfig& c) const override {
    const auto& p = c.attention.position;
    return "position interactions " + choiceText(p.mode) + " (relative " + choiceText(p.relative) +
           ", layers " + choiceText(p.layers) + ")";
  }
};

}  // namespace

const AttentionMechanism& positionInteractionsMechanism() {
  static const PositionInteractionsMechanism instance;
  return instance;
}

}  // namespace attnlab::core
