#pragma once

#include <filesystem>
#include <vector>

namespace attnlab::analysis {

struct AnalysisReport;
struct CorefProbeReport;

/// Writes analysis.json, analysis.md and the CSV tables into `outDir` (created when
/// missing), each file atomically, so an interrupted write never leaves a half report under
/// its name. Returns the files written. Throws DataError naming the file that failed.
std::vector<std::filesystem::path> writeAnalysisReport(const AnalysisReport& report,
                                                       const std::filesystem::path& outDir);
/// coref.json, coref.md and the CSV tables.
std::vector<std::filesystem::path> writeCorefReport(const CorefProbeReport& report,
                                                    const std::filesystem::path& outDir);

}  // namespace attnlab::analysis
