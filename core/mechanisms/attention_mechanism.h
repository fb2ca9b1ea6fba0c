#pragma once

// One descriptor per attention mechanism of the five papers. A descriptor says, in one
// place, what its mechanism is and does to a run:
//   - which config section switches it on, and a one-line summary of the choices a run made
//     (written to the run log's "variants" event);
//   - which stage of the attention block it acts at (the stage itself is code in
//     core/model/self_attention.cpp or, for whole-model mechanisms, core/model/masked_lm.cpp);
//   - the objective term it adds to the loss, if any (ObjectiveTerm);
//   - the scalars and per-layer series it logs: name, shape, unit, meaning, and how they are
//     measured (LoggedQuantity).
// The trainer, the run-log declaration, analysis/runs and the app read the registry
// (attentionMechanisms()) instead of naming mechanisms. Adding a mechanism is one file
// here, one line in mechanism_registry.cpp and its tests: see docs/architecture.md.

#include <ATen/core/Tensor.h>

#include "core/mechanisms/mechanism_names.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::core {

struct RunConfig;
struct MlmOutput;
struct ForwardOptions;
class MaskedLanguageModelImpl;
struct GuidanceTokens;

/// The shape of one logged value.
enum class LoggedShape {
  Scalar,       ///< one number per logged step (run log /scalars/<name>)
  PerLayer,     ///< [L] per logged step (run log /series/<name>)
  PerLayerHead  ///< [L, H] per logged step
};

/// How a logged value is obtained.
enum class LoggedReduction {
  /// Measured on every micro-batch by the step (StepMeasurements::quantities) and averaged
  /// over the micro-batches of the logging interval.
  IntervalMean,
  /// Read once at log time from the model or the schedule (AttentionMechanism::sample).
  AtLogTime
};

/// A quantity a mechanism logs during training.
struct LoggedQuantity {
  std::string name;  ///< the run log's name, e.g. "asa/mask_proportion"
  LoggedShape shape = LoggedShape::Scalar;
  LoggedReduction reduction = LoggedReduction::IntervalMean;
  std::string unit;     ///< "nats", "fraction", "weight", "temperature", ...
  std::string meaning;  ///< one line, for reports, tooltips and docs
};

/// Where a mechanism acts (documentation and the app's "variants" panel).
enum class MechanismStage {
  Projections,    ///< q, k, v after projection (temperature, blur of values)
  Scores,         ///< pre-softmax scores (position interactions, residual scores)
  Mask,           ///< the additive mask before the softmax (ASA's adversary)
  Probabilities,  ///< after the softmax (convolved attention)
  Context,        ///< the attention output before its projection (blur of context)
  AcrossLayers,   ///< over the stack's outputs (squeeze-and-excitation)
  ObjectiveOnly   ///< a loss on what the block produced (attention guidance)
};

/// The losses of one training micro-batch so far, handed from term to term.
struct ObjectiveInputs {
  MaskedLanguageModelImpl& model;
  const at::Tensor& inputIds;       ///< [B, T] int64
  const at::Tensor& attentionMask;  ///< [B, T] bool
  const at::Tensor& labels;         ///< [B, T] int64, -100 = not a target
  std::int64_t step;                ///< the optimiser step (0-based)
  const MlmOutput& clean;           ///< the clean (first) pass
};

/// Named device tensors measured on one micro-batch (IntervalMean quantities).
using QuantityValues = std::map<std::string, at::Tensor>;

/// A mechanism's addition to the training objective.
class ObjectiveTerm {
 public:
  virtual ~ObjectiveTerm() = default;
  /// What the clean pass must produce for this term.
  virtual void requestFromCleanPass(ForwardOptions& options) const = 0;
  /// The term to add to the loss (differentiable, 0-d); fills its logged quantities.
  virtual at::Tensor compute(const ObjectiveInputs& inputs, QuantityValues& measured) const = 0;
};

/// What names and places a mechanism: fixed data of its descriptor.
struct MechanismIdentity {
  /// Short id, also the config section under [attention] where one exists ("residual").
  std::string_view id;
  /// Human name and paper ("RealFormer residual attention (He et al. 2021)").
  std::string_view title;
  /// Where the formulas and the paper-vs-code choices are documented.
  std::string_view docsAnchor;
  MechanismStage stage = MechanismStage::ObjectiveOnly;
};

/// A descriptor's identity: its entry in mechanism_names.h placed at `stage`.
inline MechanismIdentity identityOf(const MechanismName& name, MechanismStage stage) {
  return {name.id, name.title, name.docsAnchor, stage};
}

/// The descriptor of one mechanism. Stateless; one static instance each in the registry.
class AttentionMechanism {
 public:
  explicit AttentionMechanism(MechanismIdentity identity) : m_identity(identity) {}
  virtual ~AttentionMechanism() = default;

  std::string_view id() const { return m_identity.id; }
  std::string_view title() const { return m_identity.title; }
  std::string_view docsAnchor() const { return m_identity.docsAnchor; }
  MechanismStage stage() const { return m_identity.stage; }

  virtual bool enabled(const RunConfig& config) const = 0;
  /// The choices this run made, for the run log ("residual attention (running sum)").
  virtual std::string summary(const RunConfig& config) const = 0;

  /// The quantities this run logs for the mechanism (empty when it logs none).
  virtual std::vector<LoggedQuantity> logged(const RunConfig& config) const { return {}; }
  /// The objective term, or null for mechanisms that only change the forward pass.
  /// `tokens` are the ids with a role in the vocabulary (separators, periods), which
  /// token-pattern terms look for.
  virtual std::unique_ptr<ObjectiveTerm> objective(const RunConfig& config,
                                                   const GuidanceTokens& tokens) const {
    return nullptr;
  }
  /// IntervalMean quantities read off the clean pass (e.g. SE's layer weights).
  virtual void measureCleanPass(const MlmOutput& clean, QuantityValues& measured) const {}
  /// AtLogTime quantities after optimiser step `completedSteps` (1-based count): values on
  /// the host, row-major in the declared shape.
  virtual void sample(const RunConfig& config, MaskedLanguageModelImpl& model,
                      std::int64_t completedSteps,
                      std::map<std::string, std::vector<double>>& values) const {}

 private:
  MechanismIdentity m_identity;
};

/// Every mechanism, in the order their summaries and quantities appear.
const std::vector<const AttentionMechanism*>& attentionMechanisms();

/// The mechanisms a config turns on.
std::vector<const AttentionMechanism*> enabledMechanisms(const RunConfig& config);

/// "variants: a; b" or "baseline attention (no variants)".
std::string describeMechanisms(const RunConfig& config);

/// Every quantity the enabled mechanisms log, in registry order.
std::vector<LoggedQuantity> loggedQuantities(const RunConfig& config);

/// Inner shape of a logged quantity for a model of `layers` x `heads` ({} for scalars).
std::vector<std::int64_t> innerShapeOf(LoggedShape shape, std::int64_t layers, std::int64_t heads);

}  // namespace attnlab::core
