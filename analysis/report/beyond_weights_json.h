#pragma once

// analysis.json's "beyond_weights" object: the corpus summaries of rollout, norm-based
// attention and the logit lens (beyond_weights_summaries.h). A summary switched off is absent.

#include "analysis/attention/beyond_weights_summaries.h"

#include <nlohmann/json.hpp>

#include <string>

namespace attnlab::analysis {

nlohmann::json beyondWeightsJson(const BeyondWeightsSummaries& summaries);

/// The name of a lens row: "layer 3", or "output" for SesameBERT's combined output.
std::string lensRowName(const LensSummary& lens, int row);

/// How the lens summary masks the evaluation set, one sentence for the reports.
std::string lensMaskingRule(const LensSummary& lens);

}  // namespace attnlab::analysis
