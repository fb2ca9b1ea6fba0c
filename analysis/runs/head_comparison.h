#pragma once

// Two checkpoints read the same inputs and their heads and layers are compared (issue 28):
// the mean JSD between every head of A and every head of B of a layer (Clark et al. 2019's
// distance between heads, across models), the pairing of least total JSD (Kuhn 1955's
// Hungarian method), and linear CKA between every layer representation of A and every one of
// B (Kornblith et al. 2019). The inputs are run A's evaluation set (its validation split or a
// text file); both models must share the tokenizer (the same piece for every id), since the
// same ids would otherwise be different texts to them. analysis/attention/head_matching.h
// holds the statistics.

#include "analysis/attention/head_matching.h"
#include "analysis/runs/analysis_control.h"
#include "analysis/runs/evaluation_set.h"
#include "analysis/runs/head_comparison_report.h"
#include "analysis/runs/run_selection.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::analysis {

struct CompareHeadsOptions {
  std::filesystem::path runA, runB;          ///< run directories or checkpoint files
  std::optional<std::int64_t> stepA, stepB;  ///< empty: the latest checkpoint
  /// Run A's validation split or a text file; 256 sequences bound the time by default.
  EvaluationSpec evaluation{{}, 256, 16};
  /// The head JSD and matching (needs equal layers and heads); false: CKA only, which
  /// compares any layer counts and widths.
  bool heads = true;
  /// Real tokens (the first, in order) whose hidden states enter CKA; 0: no CKA.
  int ckaTokens = 4096;
};

/// The phase compareHeads reports per sequence (after kPhaseLoadCheckpoint, 0..2, and
/// kPhaseBuildEvaluationSet).
inline constexpr const char* kPhaseCompareHeads = "comparing checkpoints";

/// Loads both checkpoints and runs run A's evaluation set through each, batch by batch.
/// Throws DataError when the tokenizers differ (naming both files and the first piece that
/// differs; files that differ only in what SentencePiece recorded of their training, with
/// the same pieces, are the same tokenizer), when `heads` is set and
/// the models differ in layers or heads (naming both shapes), or when run B's model cannot
/// read run A's sequences (too long); CheckpointError as selectCheckpoint; attnlab::Cancelled
/// between batches when `*cancel` is set.
HeadComparison compareHeads(const CompareHeadsOptions& options,
                            const AnalysisProgress& progress = {},
                            const std::atomic<bool>* cancel = nullptr);

}  // namespace attnlab::analysis
