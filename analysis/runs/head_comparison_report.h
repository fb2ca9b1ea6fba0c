#pragma once

// What `attnlab-cli compare --heads` reports (head_comparison.h computes it; the report
// writers and readers and the figures use it without the engine's headers).

#include "analysis/attention/head_matching.h"
#include "analysis/runs/run_selection.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace attnlab::analysis {

/// One side of the comparison.
struct ComparedModel {
  AnalysedCheckpoint source;
  std::filesystem::path tokenizer;  ///< the tokenizer.model it reads
  int layers = 0, heads = 0, hidden = 0;
};

struct HeadComparison {
  ComparedModel a, b;
  std::string evaluationKind;  ///< "validation" or "text"
  std::string evaluationDescription;
  std::int64_t sequences = 0;  ///< sequences both models read
  std::int64_t tokens = 0;     ///< real tokens of those sequences (JSD query rows per head)
  /// [layers][heads of A][heads of B] mean JSD in bits (empty without `heads`).
  std::vector<double> jsd;
  std::vector<LayerHeadMatching> matching;  ///< per layer (empty without `heads`)
  /// [a.layers + 1][b.layers + 1] linear CKA: row/column 0 the embeddings' output, then
  /// each layer's output (empty when ckaTokens is 0).
  std::vector<double> cka;
  std::int64_t ckaTokens = 0;  ///< tokens CKA used
  double seconds = 0;
};

}  // namespace attnlab::analysis
