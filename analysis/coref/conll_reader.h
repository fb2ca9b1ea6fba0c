#pragma once

#include "analysis/coref/coref_example.h"

#include <functional>
#include <istream>
#include <span>
#include <string>

namespace attnlab::analysis::coref {

/// How CoNLL-2012 text becomes model inputs.
struct ConllOptions {
  /// Most length units per example (the model's positions less <s> and </s>); 0 = no limit,
  /// one example per document part.
  int maxWords = 0;
  /// The length of one word in the model's units, so windows fit the model: the caller's
  /// tokenizer gives the number of pieces. Empty: one unit per word.
  std::function<int(const std::string& word)> wordLength;
  /// Fewest whitespace-separated columns a word line may have: the 11 fixed columns of
  /// CoNLL-2012 plus the coreference column (predicate-argument columns may be absent).
  int minColumns = 12;
  /// Map the Penn Treebank escapes back to the characters a tokenizer was trained on:
  /// -LRB- -> (, -RRB- -> ), -LSB- -> [, -RSB- -> ], -LCB- -> {, -RCB- -> }, "/." -> ".",
  /// "/?" -> "?", "/-" -> "-" (as Lee et al.'s e2e-coref does).
  bool normaliseWords = true;
  /// Keep windows that contribute no item (no mention with an antecedent inside the window).
  bool keepExamplesWithoutItems = true;
};

/// Reads a CoNLL-2012 *_conll file into examples for the antecedent probe.
///
/// An example is a window of consecutive sentences of one document part, packed greedily up
/// to `maxWords` units (words, or pieces with `wordLength`); a window never splits a sentence and
/// never spans a sentence that was skipped (so its text is always contiguous). Mentions are the
/// coreference column's spans, with cluster = the file's cluster id and head word =
/// conllHeadWord(); an item is made for each mention whose cluster has an earlier mention in the
/// same window (earlier in textual order: begin ascending, outer span first), with correct words =
/// the head words of all those earlier mentions (less the anaphor's own head word, which can never
/// be an answer).
///
/// Bad data is skipped and reported in `skipped` with "path:line", one entry per skipped unit:
///  - a sentence with a line of too few columns, a non-integer or out-of-sequence word
///    number, an unparsable coreference column, a cluster closed that was never opened
///    (reported at that line) or a mention still open at the end of the sentence (reported
///    at the line that opened it): the whole sentence is skipped;
///  - a sentence longer than maxWords units: skipped (at its first line);
///  - word lines outside any document part: skipped (at the first of them);
///  - a part without "#end document" before the next "#begin document" or the end of the
///    file: the whole part is skipped (at its "#begin document" line);
///  - "#end document" with no open part: reported, nothing else lost.
/// Throws DataError if the file cannot be opened.
CorefDataset readConll2012(const std::string& path, const ConllOptions& options = {});

/// The same from a stream; `fileName` is what "file:line" locations name.
CorefDataset readConll2012(std::istream& in, const std::string& fileName,
                           const ConllOptions& options = {});

/// Head word of the span [begin, end) from its POS tags (Collins-style rules are out of reach
/// without the parse, so this is a simple documented heuristic): cut the span at the first
/// IN, TO, WDT, WP, WP$, ",", MD or verb (VB*) that follows a noun (NN* or PRP); the head is
/// the last NN*, PRP, PRP$ or CD before the cut, else the last word of the span. With no POS
/// tags it is the last word. "the king of france" -> king, "the man who left" -> man,
/// "his mother" -> mother, "John 's car" -> car.
int conllHeadWord(std::span<const std::string> pos, int begin, int end);

}  // namespace attnlab::analysis::coref
