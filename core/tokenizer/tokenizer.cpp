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
    case TokenizerKind::FairseqSentencePiece:
      return "sentencepiece-fairseq";
  }
  return "unknown";
}

namespace {
// Every spelling isPeriodPiece accepts.
constexpr std::string_view kPeriodPieces[] = {".", "\xE2\x96\x81.", "\xC4\xA0."};
}  // namespace

std::vector<int> periodIds(const Tokenizer& tokenizer) {
  std::vector<int> ids;
  for (const auto p : kPeriodPieces) {
    const int id = tokenizer.pieceToId(p);
    if (id != tokenizer.specialIds().unk) ids.push_back(id);
  }
  return ids;
}

}  // namespace attnlab::core
