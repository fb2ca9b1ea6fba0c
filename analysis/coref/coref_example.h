#pragma once

#include "analysis/attention/skipped_data.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::analysis::coref {

/// One mention: a span of words [begin, end) within its example, its syntactic head word
/// (the word the probe reads attention from and to, as Clark et al. reduce multi-word
/// mentions to their head) and its cluster id (-1 = a singleton or unknown).
struct Mention {
  int begin = 0;
  int end = 0;
  int headWord = 0;
  int cluster = -1;
};

/// One scored decision: the anaphor's head word should attend most to the head word of one of
/// its antecedents. Kept apart from the mentions so that synthetic data can name the
/// determiner as well as the noun as correct, as the official synthetic scorer does.
struct ProbeItem {
  int mention = 0;                ///< index into mentions: the anaphor
  int queryWord = 0;              ///< its head word
  std::vector<int> correctWords;  ///< head words of its antecedents (synthetic: det and noun)
};

/// One model input's worth of text: the caller tokenises `words`, runs the model once and
/// hands the attention of that one sequence to the probe. Word indices everywhere are
/// positions in `words` (no special tokens; see WordLayout for the piece layout).
struct CorefExample {
  std::string source;              ///< "synthetic:17" (example index) or "file.conll:120"
  std::vector<std::string> words;  ///< whitespace-free words, in order
  std::vector<std::string> pos;    ///< POS tags when known (CoNLL), else empty
  std::vector<Mention> mentions;   ///< in textual order (begin ascending, outer first)
  std::vector<ProbeItem> items;    ///< the decisions this example contributes
};

/// Shared with the other analyses (analysis/attention/skipped_data.h).
using analysis::SkippedData;

/// A named set of examples plus what was skipped while building it.
struct CorefDataset {
  std::string name;
  std::vector<CorefExample> examples;
  std::vector<SkippedData> skipped;
};

/// Number of items over all examples: the denominator of every accuracy.
inline std::int64_t countItems(const CorefDataset& dataset) {
  std::int64_t n = 0;
  for (const auto& e : dataset.examples) n += static_cast<std::int64_t>(e.items.size());
  return n;
}

}  // namespace attnlab::analysis::coref
