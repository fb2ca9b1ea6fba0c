// coref.json (`attnlab-cli probe coref`), read back by readCorefJson() as the desktop app
// does. Documented error: DataError, where() = the path. A report it accepts must be usable
// as the writers use it (corefJson(), corefCsvTables(), corefMarkdown(); ASan sees any read
// past an array), and corefJson() of it reads back to the same text.

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
  const auto path = fuzz::writeScratchFile("coref.json", data, size);
  analysis::CorefProbeReport report;
  try {
    report = analysis::readCorefJson(path);
  } catch (const DataError& e) {
    fuzz::checkClearError(e);
    return 0;
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
  std::string json;
  try {
    json = analysis::corefJson(report);
    (void)analysis::corefCsvTables(report);
    (void)analysis::corefMarkdown(report);
  } catch (const std::exception& e) {
    fuzz::reportFinding("an accepted coref.json cannot be written again: " + std::string(e.what()));
  }
  const auto again = fuzz::writeScratchFile(
      "coref-again.json", reinterpret_cast<const std::uint8_t*>(json.data()), json.size());
  try {
    if (analysis::corefJson(analysis::readCorefJson(again)) != json) {
      fuzz::reportFinding("coref.json: write -> read -> write changed the report");
    }
  } catch (const std::exception& e) {
    fuzz::reportFinding("the writer's coref.json of an accepted report does not read back: " +
                        std::string(e.what()));
  }
  return 0;
}
