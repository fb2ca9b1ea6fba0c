#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace attnlab::analysis {

/// One per-layer quantity a variant logs during training, over steps.
struct LoggedSeries {
  std::string name;         ///< the log's series name, e.g. "asa/mask_proportion"
  std::string description;  ///< what it is, for reports
  std::string unit;         ///< "fraction", "weight", "temperature"
  std::vector<std::int64_t> steps;
  std::vector<std::int64_t> innerShape;  ///< [L] or [L, H]
  std::vector<float> values;             ///< steps.size() rows of innerShape, row-major
};

/// The variants' own quantities from a run log (those the run has): ASA masking proportion
/// per layer, SesameBERT layer weights, learned temperatures of q, k and v per head.
/// Throws RunLogError for an unreadable log.
std::vector<LoggedSeries> readVariantSeries(const std::filesystem::path& runLog);

}  // namespace attnlab::analysis
