#include "analysis/coref/word_attention.h"

#include "core/errors/error.h"

#include <algorithm>
#include <string>

namespace attnlab::analysis::coref {

WordLayout layoutWords(std::span<const int> piecesPerWord, bool withSpecials) {
  WordLayout layout;
  layout.withSpecials = withSpecials;
  auto add = [&layout](int count) {
    layout.firstPiece.push_back(layout.pieces);
    layout.pieceCount.push_back(count);
    layout.pieces += count;
  };
  if (withSpecials) add(1);
  for (size_t i = 0; i < piecesPerWord.size(); ++i) {
    if (piecesPerWord[i] < 1)
      throw DataError("word " + std::to_string(i),
                      "has " + std::to_string(piecesPerWord[i]) + " pieces; every word needs one");
    add(piecesPerWord[i]);
  }
  if (withSpecials) add(1);
  return layout;
}

void wordAttentionRow(const float* pieceAttention, int T, const WordLayout& layout, int word,
                      float* out) {
  const int W = layout.words();
  std::fill(out, out + W, 0.0f);
  const int first = layout.firstPiece[static_cast<size_t>(word)];
  const int count = layout.pieceCount[static_cast<size_t>(word)];
  // Accumulate in double: a long row of small values loses little this way.
  for (int j = 0; j < W; ++j) {
    const int c0 = layout.firstPiece[static_cast<size_t>(j)];
    const int c1 = c0 + layout.pieceCount[static_cast<size_t>(j)];
    double sum = 0.0;
    for (int p = first; p < first + count; ++p) {
      const float* row = pieceAttention + static_cast<size_t>(p) * static_cast<size_t>(T);
      for (int q = c0; q < c1; ++q) sum += row[q];
    }
    out[j] = static_cast<float>(sum / count);
  }
}

void wordLevelAttention(const float* pieceAttention, int T, const WordLayout& layout, float* out) {
  if (layout.pieces > T)
    throw DataError("word attention", "layout has " + std::to_string(layout.pieces) +
                                          " pieces but the attention only " + std::to_string(T));
  const int W = layout.words();
  for (int i = 0; i < W; ++i)
    wordAttentionRow(pieceAttention, T, layout, i, out + static_cast<size_t>(i) * W);
}

int argmaxExcluding(std::span<const float> row, std::span<const int> excluded) {
  int best = -1;
  for (int j = 0; j < static_cast<int>(row.size()); ++j) {
    if (std::find(excluded.begin(), excluded.end(), j) != excluded.end()) continue;
    if (best < 0 || row[static_cast<size_t>(j)] > row[static_cast<size_t>(best)]) best = j;
  }
  return best;
}

int argmaxWord(std::span<const float> wordRow, const WordLayout& layout, int queryWord,
               ArgmaxScope scope) {
  if (scope == ArgmaxScope::AllWords) return argmaxExcluding(wordRow, {});
  std::vector<int> excluded = {queryWord};
  if (layout.withSpecials) {
    excluded.push_back(0);
    excluded.push_back(layout.words() - 1);
  }
  return argmaxExcluding(wordRow, excluded);
}

}  // namespace attnlab::analysis::coref
