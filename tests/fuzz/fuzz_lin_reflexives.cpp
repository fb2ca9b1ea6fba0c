// Lin, Tan & Frank's reflexive files (refl.0 .. refl.8): readLinReflexives() from a stream.
// Bad lines are skipped and reported; DataError naming the file when no line is usable. The
// examples must keep coref_example.h's promises (coref_checks.h), and each has its one item.

#include "analysis/coref/lin_reflexive_reader.h"
#include "tests/fuzz/coref_checks.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  std::istringstream in{std::string(fuzz::asText(data, size))};
  try {
    const auto dataset = analysis::coref::readLinReflexives(in, "fuzz.tsv");
    fuzz::checkCorefDataset(dataset);
    if (dataset.examples.empty()) fuzz::reportFinding("no example and no error");
    for (const auto& ex : dataset.examples) {
      if (ex.items.size() != 1) fuzz::reportFinding("an example without exactly one item");
    }
  } catch (const DataError& e) {
    fuzz::checkClearError(e);
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
  return 0;
}
