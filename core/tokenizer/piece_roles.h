#pragma once

// What a piece is, by its spelling, in each tokenizer family the engine reads: AttnLab's
// SentencePiece (<pad> <s> </s>, "▁."), BERT's WordPiece ([PAD] [CLS] [SEP], "."), RoBERTa's
// byte-level BPE (<pad> <s> </s>, "Ġ."). For code that has pieces but not the tokenizer: a run
// log's probe tokens, an inspection's pieces. Header-only and plain C++ (the analyses' plain
// libraries use it).

#include <string_view>

namespace attnlab::core {

inline bool isPaddingPiece(std::string_view piece) {
  return piece == "<pad>" || piece == "[PAD]";
}
inline bool isSequenceStartPiece(std::string_view piece) {
  return piece == "<s>" || piece == "[CLS]";
}
inline bool isSequenceEndPiece(std::string_view piece) {
  return piece == "</s>" || piece == "[SEP]";
}
/// A sentence's full stop: "." (WordPiece), "▁." (SentencePiece), "Ġ." (byte-level BPE).
inline bool isPeriodPiece(std::string_view piece) {
  return piece == "." || piece == "\xE2\x96\x81." || piece == "\xC4\xA0.";
}

/// Punctuation only, once the family's word marker is taken off ("▁", "Ġ", "##"): ".", "▁,",
/// "Ġ!", "##)", "--"; not "<s>" or "[SEP]" (the special pieces have their own roles).
inline bool isPunctuationPiece(std::string_view piece) {
  for (std::string_view marker : {"\xE2\x96\x81", "\xC4\xA0", "##"}) {
    if (piece.substr(0, marker.size()) == marker) {
      piece.remove_prefix(marker.size());
      break;
    }
  }
  if (piece.empty() || isSequenceStartPiece(piece) || isSequenceEndPiece(piece) ||
      isPaddingPiece(piece))
    return false;
  for (const char c : piece) {
    const bool punct = (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
                       (c >= '{' && c <= '~');
    if (!punct) return false;
  }
  return true;
}

}  // namespace attnlab::core
