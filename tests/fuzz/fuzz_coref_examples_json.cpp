// coref_examples.json (written beside coref.json; the app's Probe tab drill-down), read by
// readCorefExamplesJson(). Documented error: DataError, where() = the path. Documented
// guarantee checked here: every word index (query, correct, picked; picked may be -1) names a
// word of its example and every row has one value per word, for each of the L*H heads, so a
// program can index them unchecked. The writer's text of it must read back to the same.

#include "analysis/report/json_report.h"
#include "analysis/report/report_readers.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

using namespace attnlab;

void checkExamples(const analysis::coref::ProbeExamples& kept) {
  if (kept.layers < 0 || kept.heads < 0) fuzz::reportFinding("negative layers or heads");
  const std::size_t lh =
      static_cast<std::size_t>(kept.layers) * static_cast<std::size_t>(kept.heads);
  for (const auto& ex : kept.examples) {
    const int words = static_cast<int>(ex.words.size());
    for (const auto& item : ex.items) {
      auto inside = [&](int w) { return w >= 0 && w < words; };
      if (!inside(item.queryWord)) fuzz::reportFinding("a query word outside its example");
      for (const int c : item.correctWords) {
        if (!inside(c)) fuzz::reportFinding("a correct word outside its example");
      }
      if (item.picked.size() != lh) fuzz::reportFinding("picked does not hold L*H heads");
      for (const int p : item.picked) {
        if (p != -1 && !inside(p)) fuzz::reportFinding("a pick outside its example");
      }
      if (item.rows.size() != lh * static_cast<std::size_t>(words)) {
        fuzz::reportFinding("rows do not hold L*H rows of one value per word");
      }
      for (std::size_t h = 0; h < lh; ++h) (void)item.right(static_cast<int>(h));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratchFile("coref_examples.json", data, size);
  analysis::coref::ProbeExamples kept;
  try {
    kept = analysis::readCorefExamplesJson(path);
  } catch (const DataError& e) {
    fuzz::checkClearError(e);
    return 0;
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
  checkExamples(kept);
  std::string json;
  try {
    json = analysis::corefExamplesJson(kept);
  } catch (const std::exception& e) {
    fuzz::reportFinding("accepted examples cannot be written again: " + std::string(e.what()));
  }
  const auto again = fuzz::writeScratchFile(
      "coref_examples-again.json", reinterpret_cast<const std::uint8_t*>(json.data()), json.size());
  try {
    if (analysis::corefExamplesJson(analysis::readCorefExamplesJson(again)) != json) {
      fuzz::reportFinding("coref_examples.json: write -> read -> write changed the examples");
    }
  } catch (const std::exception& e) {
    fuzz::reportFinding("the writer's coref_examples.json does not read back: " +
                        std::string(e.what()));
  }
  return 0;
}
