#pragma once

// `attnlab-cli compare --heads`'s report (head_comparison_report.h): heads_comparison.json
// (format "attnlab-heads-comparison", version 1), heads_matching.csv, cka_layers.csv and
// heads_comparison.md (report_readers.h reads the JSON back).

#include "analysis/runs/head_comparison_report.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace attnlab::analysis {

inline constexpr const char* kHeadComparisonJson = "heads_comparison.json";

/// The report's files by name, their contents.
std::map<std::string, std::string> headComparisonFiles(const HeadComparison& report);

/// Writes the files into `folder` (which exists), each under a temporary name first and
/// then renamed, so a failure leaves the previous report whole. Returns the paths written.
std::vector<std::filesystem::path> writeHeadComparison(const HeadComparison& report,
                                                       const std::filesystem::path& folder);

/// Row or column i of the CKA matrix: "embeddings", then "layer <i - 1>".
std::string ckaRepresentationName(int i);

/// The CKA of A's representation i against B's j.
double ckaAt(const HeadComparison& r, int i, int j);

}  // namespace attnlab::analysis
