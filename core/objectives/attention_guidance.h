#pragma once

#include "core/config/run_config.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::core {

/// GuidancePattern is declared with the other config choices (config_choices.h).
/// "none", "next", "prev", "first", "delim", "period"; throws ConfigError otherwise.
GuidancePattern parseGuidancePattern(std::string_view name);
const char* guidancePatternName(GuidancePattern pattern);

/// The pattern of each head of a guided layer: the explicit attention.guidance.heads list,
/// or from head_fraction (lambda): k = round(lambda * heads) guided heads, head 0 [Next],
/// head 1 [Prev], heads 2..k-1 [First] (the paper's default split), the rest None.
std::vector<GuidancePattern> assignGuidanceHeads(const GuidanceConfig& config, int heads);
/// Which layers are guided ("all" or "0,2,..."), as a mask of length `layers`.
std::vector<bool> guidedLayers(const GuidanceConfig& config, int layers);

/// Token ids that [Delim] and [Period] look for (from the tokenizer: <s> and </s>; the
/// pieces "." and "▁.").
struct GuidanceTokens {
  std::vector<std::int64_t> delimiterIds;
  std::vector<std::int64_t> periodIds;
};

/// The target matrices [B, T, T] (float32) of one pattern for a batch, padding excluded:
/// rows of padding queries and columns of padding keys are 0.
///   Next: row i -> position i+1; Prev: row i -> i-1; First: every row -> position 0.
///   Edge rows (Next at the last real token, Prev at position 0): uniform over the real
///   keys when `uniformEdges` (paper), all zero otherwise (official code).
///   Delim / Period: every real row uniform over the real positions holding such a token
///   (all zero when the sequence has none).
at::Tensor guidancePattern(GuidancePattern pattern, const at::Tensor& inputIds,
                           const at::Tensor& attentionMask, const GuidanceTokens& tokens,
                           bool uniformEdges);

/// The guidance loss of one forward pass and its parts.
struct GuidanceLoss {
  at::Tensor total;                                  ///< 0-d, differentiable
  std::map<GuidancePattern, at::Tensor> perPattern;  ///< 0-d each, detached
};

/// `probabilities`: per layer [B, H, T, T] (layers not guided may be undefined tensors);
/// `headPatterns`: per layer the pattern of each head (empty = layer not guided).
///   frobenius (paper): sum over guided (layer, head) of the batch mean of
///                      ||(A - P) restricted to real rows and columns||_F^2
///   mean (official code): sum over (layer, pattern) of the mean of (A - P)^2 over the
///                      real cells of the heads with that pattern
/// Patterns are built once per call from inputIds/attentionMask.
GuidanceLoss guidanceLoss(const std::vector<at::Tensor>& probabilities,
                          const std::vector<std::vector<GuidancePattern>>& headPatterns,
                          const at::Tensor& inputIds, const at::Tensor& attentionMask,
                          const GuidanceTokens& tokens, bool uniformEdges, bool frobenius);

/// alpha(step) for optimiser step `step` (0-based) of `totalSteps`:
///   linear (paper): alpha_0 * max(0, 1 - step / totalSteps)
///   hold (code):    alpha_0 while step < hold_steps, then
///                   alpha_0 * max(0, (totalSteps - step) / max(1, totalSteps - hold_steps))
double guidanceWeight(const GuidanceConfig& config, std::int64_t step, std::int64_t totalSteps);

/// The guidance targets of a logged probe batch, for viewers that draw the target over the
/// actual attention. Built from the pieces a run log stores (no tokenizer needed): padding
/// is "<pad>", delimiters "<s>" and "</s>", periods "." and "▁.".
struct ProbeGuidance {
  std::vector<std::vector<int>> patternOfHead;  ///< [layer][head] index into patterns, -1 none
  std::vector<std::string> patternNames;        ///< "next", "prev", ...
  /// [pattern][sequence] the T x T target (row-major, T = the probe length), padding zero.
  std::vector<std::vector<std::vector<float>>> targets;
  int length = 0;  ///< T
};
/// Empty when guidance is off in `config` or there is no probe batch.
ProbeGuidance probeGuidance(const RunConfig& config,
                            const std::vector<std::vector<std::string>>& probePieces);

}  // namespace attnlab::core
