// Softmax alternatives (attention.normalizer): softmax1 with a learned or zero sink logit,
// softpick, sigmoid attention and clipped softmax. docs/variants.md.
#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/mechanisms/mechanism_list.h"
#include "core/model/masked_lm.h"

#include <torch/torch.h>

#include <sstream>

namespace attnlab::core {

namespace {

constexpr MechanismName kNormalizerName = *findMechanismName("normalizer");
constexpr const char* kSinkLogit = "normalizer/sink_logit";

bool learnsSinks(const RunConfig& c) {
  return c.attention.normalizer == Normalizer::Softmax1 &&
         c.attention.sinkLogit == SinkLogit::Learned;
}

class NormalizerMechanism : public AttentionMechanism {
 public:
  NormalizerMechanism()
      : AttentionMechanism(identityOf(kNormalizerName, MechanismStage::Probabilities)) {}
  bool enabled(const RunConfig& c) const override {
    return c.attention.normalizer != Normalizer::Softmax;
  }
  std::string summary(const RunConfig& c) const override {
    const auto& a = c.attention;
    switch (a.normalizer) {
      case Normalizer::Softmax1:
        return "softmax1 (" + choiceText(a.sinkLogit) + " sink logit)";
      case Normalizer::Clipped: {
        std::ostringstream text;  // shortest form: "zeta 1, gamma -0.025"
        text << "clipped softmax (zeta " << a.clipped.zeta << ", gamma " << a.clipped.gamma << ")";
        return text.str();
      }
      default:
        return choiceText(a.normalizer) + " attention";
    }
  }

  std::vector<LoggedQuantity> logged(const RunConfig& c) const override {
    if (!learnsSinks(c)) return {};
    return {{kSinkLogit, LoggedShape::PerLayerHead, LoggedReduction::AtLogTime, "logit",
             "softmax1's learned sink logit b per layer and head: e^b competes with the keys"}};
  }

  void sample(const RunConfig& c, MaskedLanguageModelImpl& model, std::int64_t,
              std::map<std::string, std::vector<double>>& values) const override {
    if (!learnsSinks(c)) return;
    std::vector<at::Tensor> perLayer;
    for (int l = 0; l < model.layerCount(); ++l) {
      perLayer.push_back(model.layer(l)->attention()->sinkLogits());
    }
    const auto b = torch::stack(perLayer).to(torch::kCPU, torch::kDouble).contiguous();
    values[kSinkLogit] =
        std::vector<double>(b.data_ptr<double>(), b.data_ptr<double>() + b.numel());
  }
};

}  // namespace

const AttentionMechanism& normalizerMechanism() {
  static const NormalizerMechanism instance;
  return instance;
}

}  // namespace attnlab::core
