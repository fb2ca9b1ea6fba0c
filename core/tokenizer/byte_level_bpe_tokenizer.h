#pragma once

// GPT-2's and RoBERTa's byte-level BPE as Hugging Face's `tokenizers` library runs it (issue
// 29): added tokens matched in the text as given (RoBERTa's <mask> taking the whitespace before
// it), the ByteLevel pre-tokenizer (an optional prefix space, GPT-2's split pattern, each byte
// spelled in GPT-2's byte-to-unicode alphabet), then BPE merges by rank, each word's pieces
// cached. core_test_hf_tokenizers compares its ids with the library's on the WordNet glosses.

#include "core/tokenizer/added_tokens.h"
#include "core/tokenizer/tokenizer.h"
#include "core/tokenizer/wordpiece_tokenizer.h"

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attnlab::core {

/// tokenizer.json's ByteLevel pre-tokenizer and BPE model settings.
struct ByteLevelBpeOptions {
  bool addPrefixSpace = false;
  bool useRegex = true;
  /// BPE's ignore_merges: a word that is a piece as a whole is that piece.
  bool ignoreMerges = false;
  /// The unknown piece; unset (RoBERTa, GPT-2): a byte with no piece is left out.
  std::optional<std::string> unkToken;
};

class ByteLevelBpeTokenizer final : public Tokenizer {
 public:
  /// `merges` in rank order, each a pair of pieces as the vocabulary spells them. Throws
  /// std::invalid_argument naming the merge (its index) whose pieces or result are not pieces.
  ByteLevelBpeTokenizer(PieceIds vocab,
                        const std::vector<std::pair<std::string, std::string>>& merges,
                        ByteLevelBpeOptions options, std::vector<AddedToken> added,
                        SpecialTokenIds special, std::filesystem::path modelPath);

  std::vector<int> encode(std::string_view text) const override;
  /// Special added tokens left out; the pieces' characters mapped back to bytes.
  std::string decode(std::span<const int> ids) const override;
  int pieceToId(std::string_view piece) const override;
  std::string idToPiece(int id) const override;
  /// Added and special tokens as spelled; other pieces' bytes shown by displayBytes().
  std::string displayPiece(int id) const override;
  int vocabSize() const override { return static_cast<int>(m_pieces.size()); }
  const SpecialTokenIds& specialIds() const override { return m_special; }
  TokenizerKind kind() const override { return TokenizerKind::ByteLevelBpe; }
  const std::filesystem::path& modelPath() const override { return m_path; }

  /// The UTF-8 spelling of byte `b` in GPT-2's byte-to-unicode alphabet ("Ġ" for the space).
  static std::string byteSymbol(unsigned char b);

 private:
  void encodeSegment(std::string_view text, std::vector<int>& out) const;
  void encodeWord(std::string_view word, std::vector<int>& out) const;
  void mergeWord(std::string_view word, std::vector<int>& out) const;

  PieceIds m_vocab;
  std::vector<std::string> m_pieces;
  std::vector<bool> m_specialId;
  std::vector<bool> m_addedId;
  /// (left id << 32 | right id) -> (rank, merged id)
  std::unordered_map<std::uint64_t, std::pair<int, int>> m_merges;
  std::array<int, 256> m_byteIds{};
  ByteLevelBpeOptions m_options;
  int m_unk = -1;
  AddedTokenMatcher m_added;
  PieceIds m_addedIds;
  SpecialTokenIds m_special;
  std::filesystem::path m_path;
  mutable std::mutex m_cacheMutex;
  mutable std::unordered_map<std::string, std::vector<int>, PieceHash, std::equal_to<>> m_cache;
};

}  // namespace attnlab::core
