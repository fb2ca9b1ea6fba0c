#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace attnlab::analysis {

struct AnalysisReport;
struct CorefProbeReport;

/// Creates `outDir` and checks that a file can be written there, so a bad --out fails before
/// a long analysis rather than after it. Throws DataError naming the folder.
void prepareReportFolder(const std::filesystem::path& outDir);

/// Writes `files` (name -> content) into `outDir` (prepared with prepareReportFolder): every
/// file staged under a temporary name first and renamed into place only when all are written
/// (a full disk fails before anything is replaced), so a failed write leaves the previous
/// report whole. Files of the folder that `owned` claims and `files` does not hold (tables an
/// earlier report wrote) are removed. Returns the files written.
std::vector<std::filesystem::path> writeReportFiles(
    const std::filesystem::path& outDir, const std::map<std::string, std::string>& files,
    const std::function<bool(const std::string&)>& owned);

/// Writes analysis.json, analysis.md and the CSV tables into `outDir` (created when
/// missing): all files are staged under temporary names and only then renamed into place,
/// so a failed or interrupted write (a full disk) leaves the previous report whole; report files an
/// earlier run left there that this report does not write (a pairwise matrix, another run's series)
/// are removed. Returns the files written. Throws DataError naming the file that failed.
std::vector<std::filesystem::path> writeAnalysisReport(const AnalysisReport& report,
                                                       const std::filesystem::path& outDir);
/// coref.json, coref.md, the CSV tables and, when the report kept examples,
/// coref_examples.json (the drill-down's per-example data).
std::vector<std::filesystem::path> writeCorefReport(const CorefProbeReport& report,
                                                    const std::filesystem::path& outDir);

}  // namespace attnlab::analysis
