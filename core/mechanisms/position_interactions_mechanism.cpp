// Direct position interactions (Dufter et al. 2020): trainable absolute and/or relative
// biases added to the scores, replacing position embeddings. docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"

namespace attnlab::core {

namespace {

class PositionInteractions : public AttentionMechanism {
 public:
  std::string_view id() const override { return "position"; }
  std::string_view title() const override {
    return "Direct position interactions (Dufter, Schmitt & Schuetze 2020)";
  }
  std::string_view docsAnchor() const override { return "docs/variants.md#position-interactions"; }
  MechanismStage stage() const override { return MechanismStage::Scores; }
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
  static const PositionInteractions instance;
  return instance;
}

}  // namespace attnlab::core
