// Learnable temperature (Dufter et al. 2020): tau_q, tau_k, tau_v per head scale the
// projections. docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"
#include "core/model/masked_lm.h"

#include <torch/torch.h>

namespace attnlab::core {

namespace {

constexpr MechanismName kTemperatureName = *findMechanismName("temperature");

constexpr const char* kNames[] = {"temperature/q", "temperature/k", "temperature/v"};

class LearnableTemperature : public AttentionMechanism {
 public:
  LearnableTemperature()
      : AttentionMechanism(identityOf(kTemperatureName, MechanismStage::Projections)) {}
  bool enabled(const RunConfig& c) const override { return c.attention.temperature; }
  std::string summary(const RunConfig&) const override { return "learnable temperature"; }

  std::vector<LoggedQuantity> logged(const RunConfig&) const override {
    const char* what[] = {"queries", "keys", "values"};
    std::vector<LoggedQuantity> out;
    for (int i = 0; i < 3; ++i) {
      out.push_back(
          {kNames[i], LoggedShape::PerLayerHead, LoggedReduction::AtLogTime, "temperature",
           std::string("Learned temperature of the ") + what[i] + ", per layer and head"});
    }
    return out;
  }

  void sample(const RunConfig&, MaskedLanguageModelImpl& model, std::int64_t,
              std::map<std::string, std::vector<double>>& values) const override {
    std::vector<at::Tensor> perLayer;
    for (int l = 0; l < model.layerCount(); ++l) {
      perLayer.push_back(model.layer(l)->attention()->temperatures());
    }
    const auto tau = torch::stack(perLayer).to(torch::kCPU, torch::kFloat);  // [L, 3, H]
    for (int which = 0; which < 3; ++which) {
      const auto rows = tau.select(1, which).contiguous();
      values[kNames[which]] =
          std::vector<double>(rows.data_ptr<float>(), rows.data_ptr<float>() + rows.numel());
    }
  }
};

}  // namespace

const AttentionMechanism& learnableTemperatureMechanism() {
  static const LearnableTemperature instance;
  return instance;
}

}  // namespace attnlab::core
