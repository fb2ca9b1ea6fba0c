// The token store (<cache>/tokens-*.bin, core/data/token_store.h): a binary file in the run's
// data cache that a resume reuses when it is intact. TokenStore::tryOpen() documents no
// exception: a missing, truncated or corrupt file gives nullopt with the reason, and the
// caller rebuilds it. A store it accepts must be safe to read everywhere (every line, every
// id below the vocabulary size), since the batcher indexes it unchecked.
//
// The expected fingerprints are taken from the input's own header (bytes 16 to 32), so that
// mutations get past that check to the tables behind it.

#include "core/data/token_store.h"
#include "tests/fuzz/fuzz_support.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const auto path = fuzz::writeScratchFile("tokens.bin", data, size);
  core::TokenStoreHeader header{};
  if (size > 0) std::memcpy(&header, data, std::min(size, sizeof header));
  std::optional<core::TokenStore> store;
  std::string whyNot;
  try {
    store = core::TokenStore::tryOpen(path, header.corpusFingerprint, header.tokenizerFingerprint,
                                      &whyNot);
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
  if (!store) {
    if (whyNot.empty()) fuzz::reportFinding("tryOpen refused the store without a reason");
    return 0;
  }
  std::int64_t tokens = 0;
  for (std::int64_t l = 0; l < store->lineCount(); ++l) {
    if (store->lineLength(l) < 0) fuzz::reportFinding("a line of negative length");
    if (store->lineBegin(l) != tokens) fuzz::reportFinding("lines are not contiguous");
    for (const int id : store->line(l)) {
      if (id < 0 || id >= store->vocabSize()) {
        fuzz::reportFinding("an accepted store holds id " + std::to_string(id) +
                            " outside its vocabulary of " + std::to_string(store->vocabSize()));
      }
    }
    tokens += store->lineLength(l);
  }
  if (tokens != store->tokenCount()) fuzz::reportFinding("the lines do not hold every token");
  if (tokens > 0) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(tokens));
    store->copyIds(0, all);
  }
  return 0;
}
