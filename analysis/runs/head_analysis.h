#pragma once

// The heads' analysis over an evaluation set under one checkpoint (head_report.h says what
// it reports): one forward and backward pass with a gate per sequence and head for the
// importance, then evaluation passes with heads gated to 0 for the ablation and the pruning
// curves. The masked positions follow the logit lens's rule (15% of the real tokens of each
// sequence, seeded, independent of batching), replaced by <mask>.

#include "analysis/runs/analysis_control.h"
#include "analysis/runs/head_report.h"

#include <atomic>
#include <cstdint>
#include <vector>

namespace attnlab::core {
class AttentionInspector;
}

namespace attnlab::analysis {

class EvaluationSet;

struct HeadAnalysisOptions {
  bool ablation = true;      ///< every head masked alone (layers * heads evaluation passes)
  bool pruning = true;       ///< the importance-ordered curve and the random ones
  double pruningStep = 0.1;  ///< share of all heads per point
  std::vector<std::uint64_t> randomSeeds = {1, 2, 3};  ///< the random orders' seeds
};

/// The phases analyseHeads reports (sequences, or evaluation passes).
inline constexpr const char* kPhaseHeadImportance = "heads: importance";
inline constexpr const char* kPhaseHeadAblation = "heads: single-head ablation";
inline constexpr const char* kPhaseHeadPruning = "heads: pruning curves";

/// Throws DataError when no sequence of `set` has a position to mask; attnlab::Cancelled
/// between passes when `*cancel` is set.
HeadReport analyseHeads(core::AttentionInspector& inspector, EvaluationSet& set,
                        const HeadAnalysisOptions& options, const AnalysisProgress& progress = {},
                        const std::atomic<bool>* cancel = nullptr);

/// The masking order of a pruning curve over `scores` [L*H] (ascending score; ties: the
/// lower index), passing over a head that would leave its layer with none unmasked.
std::vector<int> pruningOrder(const std::vector<double>& scores, int layers, int heads);
/// The same for a random order: a Fisher-Yates shuffle driven by std::mt19937_64(seed).
std::vector<int> randomPruningOrder(int layers, int heads, std::uint64_t seed);
/// The numbers of heads masked at the curve's points: round(i * step * L * H) for i = 0, 1,
/// ... while at most L * (H - 1), then L * (H - 1) itself; distinct, ascending.
std::vector<int> pruningPoints(int layers, int heads, double step);

}  // namespace attnlab::analysis
