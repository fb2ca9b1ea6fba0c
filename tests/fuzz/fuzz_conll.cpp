// CoNLL-2012 *_conll files: readConll2012() from a stream, once with the defaults (one
// example per document part) and once packing windows of at most 24 units with a word
// length of one unit per 3 bytes (as a tokenizer's pieces would), which exercises the
// windowing. Bad data is skipped and reported; the stream reader documents no exception.
// The examples must keep coref_example.h's promises (coref_checks.h).

#include "analysis/coref/conll_reader.h"
#include "tests/fuzz/coref_checks.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  namespace coref = analysis::coref;
  const std::string text(fuzz::asText(data, size));
  coref::ConllOptions windows;
  windows.maxWords = 24;
  windows.wordLength = [](const std::string& word) {
    return 1 + static_cast<int>(word.size()) / 3;
  };
  windows.keepExamplesWithoutItems = false;
  for (const coref::ConllOptions& options : {coref::ConllOptions{}, windows}) {
    std::istringstream in(text);
    try {
      fuzz::checkCorefDataset(coref::readConll2012(in, "fuzz.conll", options));
    } catch (const DataError& e) {
      fuzz::checkClearError(e);
    } catch (const std::exception& e) {
      fuzz::reportUndocumented(e);
    }
  }
  return 0;
}
