#pragma once

// The corpus summaries beyond the weights (beyond_weights_summaries.h) over an evaluation set:
// which captures a batch needs, and the lens's second forward pass on the masked batch.

#include "analysis/attention/beyond_weights_summaries.h"
#include "analysis/runs/evaluation_set.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace attnlab::core {
class AttentionInspector;
struct BatchCapture;
struct BatchRequest;
}  // namespace attnlab::core

namespace attnlab::analysis {

/// Which summaries `attnlab-cli analyze` computes (--no-rollout, --no-norms, --no-lens).
struct BeyondWeightsOptions {
  bool rollout = true;
  bool norms = true;
  bool lens = true;
  bool any() const { return rollout || norms || lens; }
};

/// Accumulates the summaries batch by batch; memory fixed by the model's shape.
class BeyondWeightsPass {
 public:
  BeyondWeightsPass(const core::AttentionInspector& inspector, const BeyondWeightsOptions& options);
  ~BeyondWeightsPass();

  /// What the statistics' forward pass must capture as well (the norms).
  core::BatchRequest request() const;
  /// One batch: `capture` of `batch.ids` (its probabilities, [L, B, H, T, T], and the norms
  /// when asked); the lens runs its own pass on the masked ids. `firstSequence` is the
  /// batch's first sequence's index in the set (the masking's key).
  void addBatch(core::AttentionInspector& inspector, const EvaluationBatch& batch,
                const core::BatchCapture& capture, std::int64_t firstSequence);
  BeyondWeightsSummaries result() const;

 private:
  void addLens(core::AttentionInspector& inspector, const EvaluationBatch& batch,
               std::int64_t firstSequence);

  BeyondWeightsOptions m_options;
  bool m_lensSkipped = false;  ///< asked for, but the model has no MLM head
  int m_layers = 0, m_heads = 0;
  std::uint64_t m_seed = 0;
  std::int64_t m_maskId = 0;
  std::vector<std::int64_t> m_specialIds;
  std::optional<RolloutAccumulator> m_rollout;
  std::optional<NormAccumulator> m_norms;
  std::optional<LensAccumulator> m_lens;
  std::vector<float> m_sequence;  // one sequence's [L, H, T, T], gathered for the rollout
};

}  // namespace attnlab::analysis
