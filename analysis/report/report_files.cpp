#include "analysis/report/report_files.h"

#include "analysis/report/beyond_weights_tables.h"
#include "analysis/report/csv_report.h"
#include "analysis/report/head_report_tables.h"
#include "analysis/report/json_report.h"
#include "analysis/report/markdown_report.h"
#include "analysis/runs/coref_probe_report.h"
#include "core/data/data_files.h"
#include "core/errors/error.h"

#include <map>
#include <set>
#include <string>
#include <system_error>
#include <utility>

namespace attnlab::analysis {

namespace fs = std::filesystem;

void prepareReportFolder(const fs::path& outDir) {
  std::error_code ec;
  fs::create_directories(outDir, ec);
  if (ec) throw DataError(outDir.string(), "cannot create the report folder: " + ec.message());
  // Written and removed at once: a folder that takes no file fails now, not after the work.
  const fs::path probe = core::temporaryPathFor(outDir / ".attnlab-write-check");
  core::writeFileAtomically(probe, "");
  fs::remove(probe, ec);
}

namespace {

/// Whether a file name is one a report of this kind writes (some only sometimes).
bool ownedByAnalysis(const std::string& name) {
  static const std::set<std::string> fixed = {"analysis.json",
                                              "analysis.md",
                                              "entropy_heads.csv",
                                              "jsd_adjacent_layers.csv",
                                              "jsd_pairwise_heads.csv",
                                              "head_summaries.csv",
                                              "guidance_conformity.csv",
                                              "over_training.csv",
                                              kRolloutCsv,
                                              kNormHeadsCsv,
                                              kNormLayersCsv,
                                              kLensCsv,
                                              kHeadImportanceCsv,
                                              kHeadPruningCsv};
  return fixed.count(name) > 0 || (name.starts_with("series_") && name.ends_with(".csv"));
}

bool ownedByCoref(const std::string& name) {
  return name.starts_with("coref") &&
         (name.ends_with(".csv") || name.ends_with(".json") || name.ends_with(".md"));
}

}  // namespace

std::vector<fs::path> writeReportFiles(const fs::path& outDir,
                                       const std::map<std::string, std::string>& files,
                                       const std::function<bool(const std::string&)>& owned) {
  prepareReportFolder(outDir);
  // Every file is staged under a temporary name first; only when all are written (a full
  // disk fails here) do they replace the old report, so a failure leaves the previous
  // report whole instead of half old, half new.
  std::vector<std::pair<fs::path, fs::path>> staged;  // temporary, final
  try {
    for (const auto& [name, content] : files) {
      const fs::path target = outDir / name;
      const fs::path temporary = core::temporaryPathFor(target);
      staged.emplace_back(temporary, target);
      core::writeFileAtomically(temporary, content);
    }
  } catch (...) {
    std::error_code ignored;
    for (const auto& [temporary, target] : staged) fs::remove(temporary, ignored);
    throw;
  }
  std::vector<fs::path> written;
  for (const auto& [temporary, target] : staged) {
    core::replaceFile(temporary, target);
    written.push_back(target);
  }
  // A table an earlier report wrote and this one does not (no pairwise matrix, another
  // run's series) would contradict the new JSON: remove it. Other files are left alone.
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(outDir, ec)) {
    const std::string name = entry.path().filename().string();
    if (owned(name) && files.count(name) == 0) fs::remove(entry.path(), ec);
  }
  return written;
}

std::vector<fs::path> writeAnalysisReport(const AnalysisReport& report, const fs::path& outDir) {
  auto files = analysisCsvTables(report);
  files["analysis.json"] = analysisJson(report);
  files["analysis.md"] = analysisMarkdown(report);
  return writeReportFiles(outDir, files, ownedByAnalysis);
}

std::vector<fs::path> writeCorefReport(const CorefProbeReport& report, const fs::path& outDir) {
  auto files = corefCsvTables(report);
  files["coref.json"] = corefJson(report);
  files["coref.md"] = corefMarkdown(report);
  // The drill-down's examples beside the report, staged and renamed with it; a probe that
  // kept none (a report rebuilt from coref.json alone) writes none, and an older one is
  // removed with the other stale coref files.
  if (!report.kept.examples.empty()) files["coref_examples.json"] = corefExamplesJson(report.kept);
  return writeReportFiles(outDir, files, ownedByCoref);
}

}  // namespace attnlab::analysis
