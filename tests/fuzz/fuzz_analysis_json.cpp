// analysis.json (`attnlab-cli analyze`), read back by readAnalysisJson() as the desktop app
// does. Documented error: DataError, where() = the path, reason starting with the JSON
// pointer. A report it accepts must be usable as the writers use it: analysisJson(),
// analysisCsvTables() and analysisMarkdown() index it by its layers and heads (ASan sees any
// read past an array), and analysisJson() of the report reads back to the same text.

#include "analysis/report/csv_report.h"
#include "analysis/report/json_report.h"
#include "analysis/report/markdown_report.h"
#include "analysis/report/report_readers.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const auto path = fuzz::writeScratchFile("analysis.json", data, size);
  analysis::AnalysisReport report;
  try {
    report = analysis::readAnalysisJson(path);
  } catch (const DataError& e) {
    fuzz::checkClearError(e);
    return 0;
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
  std::string json;
  try {
    json = analysis::analysisJson(report);
    (void)analysis::analysisCsvTables(report);
    (void)analysis::analysisMarkdown(report);
  } catch (const std::exception& e) {
    fuzz::reportFinding("an accepted analysis.json cannot be written again: " +
                        std::string(e.what()));
  }
  const auto again = fuzz::writeScratchFile(
      "analysis-again.json", reinterpret_cast<const std::uint8_t*>(json.data()), json.size());
  try {
    if (analysis::analysisJson(analysis::readAnalysisJson(again)) != json) {
      fuzz::reportFinding("analysis.json: write -> read -> write changed the report");
    }
  } catch (const std::exception& e) {
    fuzz::reportFinding("the writer's analysis.json of an accepted report does not read back: " +
                        std::string(e.what()));
  }
  return 0;
}
