#pragma once

// What the heads' analysis reports (head_analysis.h computes it; the report writers read it
// without the engine's headers): head importance (Michel et al. 2019, "Are Sixteen Heads
// Really Better than One?", section 4.1), single-head ablation, and pruning curves in order
// of importance and in random orders (their section 4.2 and figure 3).

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::analysis {

/// MLM loss (nats, mean over the masked positions) and accuracy on the evaluation set.
struct MaskedLmScore {
  double loss = 0;
  double accuracy = 0;
};

/// One point of a pruning curve: `masked` heads gated to 0 (the first `masked` of the order).
struct PruningPoint {
  int masked = 0;
  double share = 0;  ///< masked / (layers * heads)
  MaskedLmScore score;
};

struct PruningCurve {
  std::string order;       ///< "importance" or "random"
  std::uint64_t seed = 0;  ///< the random order's seed (0 for "importance")
  /// Heads (flat l * H + h) in the order they are masked; a head that would leave its layer
  /// without any is passed over, so the order covers layers * (heads - 1) heads.
  std::vector<int> heads;
  std::vector<PruningPoint> points;
};

struct HeadReport {
  int layers = 0, heads = 0;
  std::int64_t sequences = 0;  ///< sequences with at least one masked position
  std::int64_t positions = 0;  ///< masked positions scored
  std::uint64_t maskSeed = 0;  ///< the masking's seed (the lens's rule, docs/analysis.md)
  MaskedLmScore full;          ///< every gate 1: the model as trained
  /// [L*H] E_x |dL(x)/dxi_h| over sequences x (L: the sequence's mean loss), and the same
  /// divided by its layer's L2 norm (Michel et al.'s normalisation, what the pruning order
  /// uses).
  std::vector<double> importanceRaw;
  std::vector<double> importance;
  std::vector<MaskedLmScore> ablation;  ///< [L*H] with that head alone masked (empty: skipped)
  std::vector<PruningCurve> pruning;    ///< importance order first, then the random ones
  double evaluationSeconds = 0;         ///< one evaluation pass (the full model's score)
  double importanceSeconds = 0;
  double ablationSeconds = 0;
  double pruningSeconds = 0;  ///< the importance-ordered curve only
  int pruningPasses = 0;      ///< evaluation passes of the importance-ordered curve
};

}  // namespace attnlab::analysis
