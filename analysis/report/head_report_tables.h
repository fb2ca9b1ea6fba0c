#pragma once

// The heads' analysis (analyze --heads) in the CSV tables and the Markdown report.

#include "analysis/runs/head_report.h"

#include <map>
#include <string>

namespace attnlab::analysis {

inline constexpr const char* kHeadImportanceCsv = "heads_importance.csv";
inline constexpr const char* kHeadPruningCsv = "heads_pruning.csv";

/// heads_importance.csv (importance and ablation per head) and heads_pruning.csv (every
/// curve's points).
void addHeadReportCsv(std::map<std::string, std::string>& tables, const HeadReport& report);
/// The Markdown section "Heads: importance, ablation and pruning".
std::string headReportMarkdown(const HeadReport& report);

}  // namespace attnlab::analysis
