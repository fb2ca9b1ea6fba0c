#include "core/tokenizer/tokenizer.h"

namespace attnlab::core {

std::string_view tokenizerKindName(TokenizerKind kind) {
  switch (kind) {
    case TokenizerKind::SentencePiece:
      return "sentencepiece";
    case TokenizerKind::WordPiece:
      return "wordpiece";
    case TokenizerKind::ByteLevelBpe:
      return "byte-level-bpe";
  }
  return "unknown";
}

}  // namespace attnlab::core
