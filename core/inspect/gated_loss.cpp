#include "core/inspect/gated_loss.h"

#include "core/model/masked_lm.h"

#include <torch/torch.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::core {

namespace {

/// Parameters stop asking for gradients while it lives: the backward pass then computes
/// only what reaches the gates (no weight gradients, the larger half of a backward pass).
class FrozenParameters {
 public:
  explicit FrozenParameters(torch::nn::Module& module) {
    for (auto& p : module.parameters()) {
      m_flags.push_back(p.requires_grad());
      m_parameters.push_back(p);
      p.requires_grad_(false);
    }
  }
  ~FrozenParameters() {
    for (std::size_t i = 0; i < m_parameters.size(); ++i)
      m_parameters[i].requires_grad_(m_flags[i]);
  }
  FrozenParameters(const FrozenParameters&) = delete;
  FrozenParameters& operator=(const FrozenParameters&) = delete;

 private:
  std::vector<torch::Tensor> m_parameters;
  std::vector<bool> m_flags;
};

void checkShapes(MaskedLanguageModelImpl& model, const at::Tensor& ids, const MaskedTargets& masked,
                 const at::Tensor& gates) {
  if (ids.dim() != 2) throw std::invalid_argument("gated loss: ids must be [batch, length]");
  if (masked.positions.numel() != masked.targets.numel())
    throw std::invalid_argument("gated loss: " + std::to_string(masked.positions.numel()) +
                                " positions but " + std::to_string(masked.targets.numel()) +
                                " targets");
  if (!gates.defined()) return;
  const auto heads = model.layer(0)->attention()->heads();
  if (gates.dim() != 2 || gates.size(0) != model.layerCount() || gates.size(1) != heads)
    throw std::invalid_argument("gated loss: gates must be [" + std::to_string(model.layerCount()) +
                                ", " + std::to_string(heads) + "], got " + c10::str(gates.sizes()));
}

/// One gate tensor per layer: [H] rows of `gates`, or [B, H] leaves that take gradients.
std::vector<torch::Tensor> layerGates(MaskedLanguageModelImpl& model, const at::Tensor& gates,
                                      std::int64_t batch, bool gradient) {
  std::vector<torch::Tensor> out;
  if (!gates.defined() && !gradient) return out;
  const auto heads = model.layer(0)->attention()->heads();
  const auto dtype = model.parameters().front().scalar_type();
  const auto device = model.parameters().front().device();
  for (int l = 0; l < model.layerCount(); ++l) {
    auto g = gates.defined() ? gates[l].to(device, dtype)
                             : torch::ones({heads}, torch::dtype(dtype).device(device));
    if (gradient) g = g.expand({batch, heads}).clone().requires_grad_(true);
    out.push_back(g);
  }
  return out;
}

}  // namespace

GatedLoss gatedMlmLoss(MaskedLanguageModelImpl& model, const at::Tensor& ids,
                       const at::Tensor& attentionMask, const MaskedTargets& masked,
                       const at::Tensor& gates, bool gradient) {
  checkShapes(model, ids, masked, gates);
  const auto batch = ids.size(0), length = ids.size(1);
  torch::AutoGradMode gradMode(gradient);
  std::optional<FrozenParameters> frozen;
  if (gradient) frozen.emplace(model);
  // The gates are replacement hooks on each head's context ("blocks.{L}.attn.z", before the
  // output projection): a gate of 1 leaves the pass bitwise as it was (x * 1 == x), 0 masks
  // the head's output (its scores still enter RealFormer's running sum).
  const auto layerGateTensors = layerGates(model, gates, batch, gradient);
  HookRequest request;
  for (size_t l = 0; l < layerGateTensors.size(); ++l) {
    const auto g = layerGateTensors[l];
    request.replace("blocks." + std::to_string(l) + ".attn.z",
                    [g](const std::string&, const at::Tensor& z) {
                      return z * g.to(z.scalar_type()).view({-1, z.size(1), 1, 1});
                    });
  }
  HookSession hooks(request);
  ForwardOptions options;
  options.hooks = &hooks;
  MlmOutput unused;
  const auto hidden = model.encodeWith(ids, attentionMask, options, unused);
  const auto rows = hidden.reshape({-1, hidden.size(-1)}).index_select(0, masked.positions);
  const auto logProbabilities = torch::log_softmax(model.logits(rows), -1);
  const auto nll = -logProbabilities.gather(1, masked.targets.unsqueeze(1)).squeeze(1);
  const auto sequence = masked.positions.div(length, "floor");
  const auto counts = torch::bincount(sequence, {}, batch);
  const auto perSequence =
      torch::zeros({batch}, nll.options()).index_add(0, sequence, nll) / counts.clamp_min(1);

  GatedLoss out;
  out.lossSum = nll.sum().item<double>();
  out.correct = logProbabilities.argmax(-1).eq(masked.targets).sum().item<std::int64_t>();
  out.count = masked.positions.numel();
  out.sequenceLoss = perSequence.detach().to(torch::kDouble);
  out.sequenceCount = counts.to(torch::kLong);
  if (gradient) {
    perSequence.sum().backward();
    std::vector<torch::Tensor> grads;
    for (const auto& g : layerGateTensors) grads.push_back(g.grad().to(torch::kDouble));
    out.gateGradient = torch::stack(grads);
  }
  return out;
}

}  // namespace attnlab::core
