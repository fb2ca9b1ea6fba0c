#pragma once

// The query-key map (AttentionViz, analysis/attention/query_key_map.h) of one head or of
// every head of a layer over the real tokens of an evaluation set: each token once as a
// query and once as a key, with what a hover needs to name it (the piece, its sequence's
// text, its position).

#include "analysis/attention/query_key_map.h"
#include "analysis/runs/analysis_control.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::core {
class AttentionInspector;
}

namespace attnlab::analysis {

class EvaluationSet;

/// One head's map; its coords are [(tokens + tokens) * dims], the queries first.
struct QueryKeyHeadMap {
  int layer = 0, head = 0;
  QueryKeyMap map;
};

struct QueryKeySample {
  int layer = 0;
  int head = -1;  ///< the head asked for; -1: every head of the layer
  int headDim = 0;
  /// Per token, in the evaluation set's order (a point's token is the same as query and
  /// as key): its sequence (index into `sentences`), position (0 = <s>), id and piece, and
  /// whether it is a special piece (<s>, </s>, <mask>, <unk>; <pad> is never sampled).
  std::vector<std::int64_t> sequence, position, tokenIds;
  std::vector<std::uint8_t> special;
  std::vector<std::string> pieces;
  /// Each sampled sequence's text: its ordinary pieces decoded, special pieces inside it
  /// (a packed block's </s> between lines) kept as written.
  std::vector<std::string> sentences;
  std::vector<QueryKeyHeadMap> maps;  ///< one per head asked for, by head

  std::int64_t tokens() const { return static_cast<std::int64_t>(tokenIds.size()); }
};

/// The phase sampleQueryKeys reports, in tokens.
inline constexpr const char* kPhaseQueryKeys = "query-key map";

/// Throws DataError naming the model's shape unless 0 <= layer < layers and
/// -1 <= head < heads, or when maxTokens < 1: a caller checks this before building the
/// evaluation set, which can take long.
void checkQueryKeyRequest(const core::AttentionInspector& inspector, int layer, int head,
                          int maxTokens);

/// The queries and keys of layer `layer`, head `head` (-1: every head) of the first
/// `maxTokens` real tokens of `set` (from its start), projected with queryKeyMap (2 dims,
/// or 1 for one-dimensional heads). Throws DataError as checkQueryKeyRequest, and when the
/// set has no token;
/// attnlab::Cancelled between batches when `*cancel` is set.
QueryKeySample sampleQueryKeys(core::AttentionInspector& inspector, EvaluationSet& set, int layer,
                               int head, int maxTokens = 10000,
                               const AnalysisProgress& progress = {},
                               const std::atomic<bool>* cancel = nullptr);

}  // namespace attnlab::analysis
