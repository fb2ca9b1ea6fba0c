// QK-norm (Dehghani et al. 2023; Wortsman et al. 2023): LayerNorm or RMSNorm over each
// head's queries and keys before the scores. docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"

namespace attnlab::core {

namespace {

constexpr MechanismName kQkNormName = *findMechanismName("qk_norm");

class QkNormMechanism : public AttentionMechanism {
 public:
  QkNormMechanism() : AttentionMechanism(identityOf(kQkNormName, MechanismStage::Projections)) {}
  bool enabled(const RunConfig& c) const override { return c.attention.qkNorm != QkNorm::None; }
  std::string summary(const RunConfig& c) const override {
    return "QK-norm (" + choiceText(c.attention.qkNorm) + ")";
  }
};

}  // namespace

const AttentionMechanism& qkNormMechanism() {
  static const QkNormMechanism instance;
  return instance;
}

}  // namespace attnlab::core
