#pragma once

#include <map>
#include <string>

namespace attnlab::analysis {

struct AnalysisReport;
struct CorefProbeReport;

/// Per-head tables as CSV, by file name ("entropy_heads.csv" -> content). Column names
/// carry their unit (median_nats, median_bits); layers and heads count from 0.
std::map<std::string, std::string> analysisCsvTables(const AnalysisReport& report);
std::map<std::string, std::string> corefCsvTables(const CorefProbeReport& report);

/// A CSV field: quoted when it holds a comma, quote or newline (quotes doubled).
std::string csvField(const std::string& text);

}  // namespace attnlab::analysis
