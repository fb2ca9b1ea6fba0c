#pragma once

#include <span>
#include <vector>

namespace attnlab::analysis::coref {

/// Where each word's pieces lie in the model input. The input is laid out as
/// `<s>` + pieces of word 0 + pieces of word 1 + ... + `</s>` (+ padding). With specials, the
/// layout words are [<s>, word 0, ..., word n-1, </s>]: the specials count as words of their
/// own, as in Clark et al. (2019), so attention to them stays visible in the word matrix.
struct WordLayout {
  std::vector<int> firstPiece;  ///< per layout word: index of its first piece
  std::vector<int> pieceCount;  ///< per layout word: number of its pieces (>= 1)
  int pieces = 0;               ///< pieces in use (specials included); padding lies beyond
  bool withSpecials = true;     ///< layout word 0 is <s> and the last one is </s>

  /// Number of layout words (example words plus the specials).
  int words() const { return static_cast<int>(firstPiece.size()); }
  /// Number of example words.
  int exampleWords() const { return words() - (withSpecials ? 2 : 0); }
  /// Layout word of example word `word`.
  int layoutWord(int word) const { return word + (withSpecials ? 1 : 0); }
  /// Example word of layout word `layout`, or -1 for a special.
  int exampleWord(int layout) const {
    const int w = layout - (withSpecials ? 1 : 0);
    return w >= 0 && w < exampleWords() ? w : -1;
  }
  /// Whether layout word `layout` is <s> or </s>.
  bool isSpecial(int layout) const { return exampleWord(layout) < 0; }
};

/// Builds the layout from the number of pieces of each example word (what the caller's
/// tokenizer produced word by word). Throws DataError for a word of fewer than one piece.
WordLayout layoutWords(std::span<const int> piecesPerWord, bool withSpecials = true);

/// Converts a piece-level attention matrix [T, T] (row-major, row stride T; rows are queries)
/// to the word-level matrix [W, W], W = layout.words(): attention TO a word is the SUM over
/// its pieces' columns (the probability mass that lands on the word), attention FROM a word
/// is the MEAN over its pieces' rows (the paper's choice in Clark et al.; their code defaults
/// to the first piece). Columns at and beyond layout.pieces (padding) are ignored, so rows
/// sum to the mass on real pieces.
void wordLevelAttention(const float* pieceAttention, int T, const WordLayout& layout, float* out);

/// One row of wordLevelAttention(): the attention of layout word `word` to every layout word,
/// written to out[0 .. W). Lets the probe convert only the rows it scores.
void wordAttentionRow(const float* pieceAttention, int T, const WordLayout& layout, int word,
                      float* out);

/// Which words may be a head's answer. The official synthetic scorer takes the argmax over
/// all positions (the query itself and the specials included); Clark et al. score the
/// mention's antecedent among the other words, so the default leaves the query word and the
/// specials out (attention to <s>/</s> and to itself would otherwise hide the head's choice).
enum class ArgmaxScope { AllWords, ExcludeSelfAndSpecials };

/// Index of the largest entry of `row` whose index is not in `excluded`; the first on ties
/// (as numpy.argmax), -1 if every index is excluded.
int argmaxExcluding(std::span<const float> row, std::span<const int> excluded);

/// The layout word that layout word `queryWord` attends to most in the word-level row
/// `wordRow` (length layout.words()), within `scope`; -1 if no word is allowed.
int argmaxWord(std::span<const float> wordRow, const WordLayout& layout, int queryWord,
               ArgmaxScope scope = ArgmaxScope::ExcludeSelfAndSpecials);

}  // namespace attnlab::analysis::coref
