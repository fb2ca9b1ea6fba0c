// Differential attention (Ye et al. 2024): the difference of two softmax maps per head,
// weighted by a learned lambda. docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"
#include "core/model/masked_lm.h"

#include <torch/torch.h>

namespace attnlab::core {

namespace {

constexpr MechanismName kDifferentialName = *findMechanismName("differential");
constexpr const char* kLambda = "differential/lambda";

class DifferentialMechanism : public AttentionMechanism {
 public:
  DifferentialMechanism()
      : AttentionMechanism(identityOf(kDifferentialName, MechanismStage::Probabilities)) {}
  bool enabled(const RunConfig& c) const override { return c.attention.differential; }
  std::string summary(const RunConfig&) const override { return "differential attention"; }

  std::vector<LoggedQuantity> logged(const RunConfig&) const override {
    return {{kLambda, LoggedShape::PerLayer, LoggedReduction::AtLogTime, "weight",
             "differential attention's lambda per layer: the weight of the subtracted map"}};
  }

  void sample(const RunConfig&, MaskedLanguageModelImpl& model, std::int64_t,
              std::map<std::string, std::vector<double>>& values) const override {
    std::vector<double> lambdas;
    for (int l = 0; l < model.layerCount(); ++l) {
      lambdas.push_back(model.layer(l)->attention()->differentialLambda().item<double>());
    }
    values[kLambda] = std::move(lambdas);
  }
};

}  // namespace

const AttentionMechanism& differentialMechanism() {
  static const DifferentialMechanism instance;
  return instance;
}

}  // namespace attnlab::core
