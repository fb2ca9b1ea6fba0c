#pragma once

// The corpus summaries beyond the weights in the CSV tables and the Markdown report.

#include "analysis/attention/beyond_weights_summaries.h"

#include <map>
#include <string>

namespace attnlab::analysis {

/// The CSV tables' names, so a stale one (a summary skipped this time) can be removed.
inline constexpr const char* kRolloutCsv = "rollout_layers.csv";
inline constexpr const char* kNormHeadsCsv = "norms_heads.csv";
inline constexpr const char* kNormLayersCsv = "norms_layers.csv";
inline constexpr const char* kLensCsv = "logit_lens.csv";

/// Adds a table per summary present (units in the column names).
void addBeyondWeightsCsv(std::map<std::string, std::string>& tables,
                         const BeyondWeightsSummaries& summaries);
/// The Markdown sections; empty when every summary was skipped.
std::string beyondWeightsMarkdown(const BeyondWeightsSummaries& summaries);

}  // namespace attnlab::analysis
