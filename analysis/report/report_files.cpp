#include "analysis/report/report_files.h"

#include "analysis/report/csv_report.h"
#include "analysis/report/json_report.h"
#include "analysis/report/markdown_report.h"
#include "core/data/data_files.h"
#include "core/errors/error.h"

#include <map>
#include <string>
#include <system_error>

namespace attnlab::analysis {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> writeAll(const fs::path& outDir,
                               const std::map<std::string, std::string>& files) {
  std::error_code ec;
  fs::create_directories(outDir, ec);
  if (ec) throw DataError(outDir.string(), "cannot create the report folder: " + ec.message());
  std::vector<fs::path> written;
  for (const auto& [name, content] : files) {
    core::writeFileAtomically(outDir / name, content);
    written.push_back(outDir / name);
  }
  return written;
}

}  // namespace

std::vector<fs::path> writeAnalysisReport(const AnalysisReport& report, const fs::path& outDir) {
  auto files = analysisCsvTables(report);
  files["analysis.json"] = analysisJson(report);
  files["analysis.md"] = analysisMarkdown(report);
  return writeAll(outDir, files);
}

std::vector<fs::path> writeCorefReport(const CorefProbeReport& report, const fs::path& outDir) {
  auto files = corefCsvTables(report);
  files["coref.json"] = corefJson(report);
  files["coref.md"] = corefMarkdown(report);
  return writeAll(outDir, files);
}

}  // namespace attnlab::analysis
