#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"

namespace attnlab::core {

const std::vector<const AttentionMechanism*>& attentionMechanisms() {
  // The registration: one line per mechanism. The order is the order of the run log's
  // "variants" summary and of the logged quantities.
  static const std::vector<const AttentionMechanism*> all = {
      &attentionGuidanceMechanism(),    &positionInteractionsMechanism(),
      &learnableTemperatureMechanism(), &convolvedAttentionMechanism(),
      &residualAttentionMechanism(),    &adversarialAttentionMechanism(),
      &gaussianBlurMechanism(),         &squeezeExcitationMechanism(),
      &outputGateMechanism(),           &qkNormMechanism(),
      &normalizerMechanism(),           &differentialMechanism(),
  };
  return all;
}

std::vector<const AttentionMechanism*> enabledMechanisms(const RunConfig& config) {
  std::vector<const AttentionMechanism*> out;
  for (const auto* m : attentionMechanisms()) {
    if (m->enabled(config)) out.push_back(m);
  }
  return out;
}

std::string describeMechanisms(const RunConfig& config) {
  std::string out;
  for (const auto* m : enabledMechanisms(config)) {
    out += (out.empty() ? "" : "; ") + m->summary(config);
  }
  return out.empty() ? "baseline attention (no variants)" : "variants: " + out;
}

std::vector<LoggedQuantity> loggedQuantities(const RunConfig& config) {
  std::vector<LoggedQuantity> out;
  for (const auto* m : enabledMechanisms(config)) {
    for (auto& q : m->logged(config)) out.push_back(std::move(q));
  }
  return out;
}

std::vector<std::int64_t> innerShapeOf(LoggedShape shape, std::int64_t layers, std::int64_t heads) {
  switch (shape) {
    case LoggedShape::Scalar:
      return {};
    case LoggedShape::PerLayer:
      return {layers};
    case LoggedShape::PerLayerHead:
      return {layers, heads};
  }
  return {};
}

}  // namespace attnlab::core
