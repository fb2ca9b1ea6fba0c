#pragma once

// XLM-R's tokenizer (issue 29): a SentencePiece model read with the id layout fairseq gave it
// and Hugging Face kept. <s> <pad> </s> <unk> are ids 0-3, the model's own pieces follow
// shifted by one (its <unk>, id 0, becomes 3), <mask> comes last. The folder's tokenizer.json
// (a Unigram model with the same pieces and scores, SentencePiece's own normaliser and
// Metaspace) is what `tokenizers` runs; AttnLab runs the SentencePiece model it was made from,
// with the added tokens of tokenizer.json found first as `tokenizers` finds them.

#include "core/tokenizer/added_tokens.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "core/tokenizer/tokenizer.h"

#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::core {

class FairseqSentencePieceTokenizer final : public Tokenizer {
 public:
  /// fairseq's shift of the model's ids: the model's piece i is id i + 1.
  static constexpr int kIdOffset = 1;

  /// `pieces` loaded with SentencePieceTokenizer::loadForeign; `added` (tokenizer.json's
  /// added_tokens) hold <s> <pad> </s> <unk> <mask> at the ids `special` names; `vocabSize` the
  /// model's pieces + 1 + the added tokens past them. `file` is the tokenizer.json read.
  FairseqSentencePieceTokenizer(SentencePieceTokenizer pieces, std::vector<AddedToken> added,
                                SpecialTokenIds special, int vocabSize, std::filesystem::path file);

  std::vector<int> encode(std::string_view text) const override;
  /// The text of `ids`, special tokens left out.
  std::string decode(std::span<const int> ids) const override;
  int pieceToId(std::string_view piece) const override;
  std::string idToPiece(int id) const override;
  int vocabSize() const override { return m_vocabSize; }
  const SpecialTokenIds& specialIds() const override { return m_special; }
  TokenizerKind kind() const override { return TokenizerKind::FairseqSentencePiece; }
  const std::filesystem::path& modelPath() const override { return m_file; }

 private:
  /// The model's id as fairseq's: its <unk> is ours.
  int shifted(int pieceId) const;

  SentencePieceTokenizer m_pieces;
  AddedTokenMatcher m_matcher;
  std::map<std::string, int, std::less<>> m_addedByContent;
  std::map<int, std::string> m_addedById;
  std::set<int> m_specialIds;  ///< added tokens marked special: left out by decode()
  SpecialTokenIds m_special;
  int m_vocabSize = 0;
  std::filesystem::path m_file;
};

}  // namespace attnlab::core
