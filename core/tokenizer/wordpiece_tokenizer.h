#pragma once

// BERT's WordPiece tokenizer as Hugging Face's `tokenizers` library runs it (issue 29): added
// tokens matched in the text as given, BertNormalizer (clean text, spaces around CJK
// ideographs, accents stripped by NFD, lowercase per code point), BertPreTokenizer (whitespace
// and punctuation), then greedy longest-match-first WordPiece with the "##" continuation.
// core_test_hf_tokenizers compares its ids with the library's on the WordNet glosses.

#include "core/tokenizer/added_tokens.h"
#include "core/tokenizer/tokenizer.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace attnlab::core {

/// tokenizer.json's normalizer (BertNormalizer) and model (WordPiece) settings.
struct WordPieceOptions {
  bool cleanText = true;
  bool handleChineseChars = true;
  bool lowercase = true;
  /// Unset: follows `lowercase` (as BertNormalizer's null strip_accents does).
  std::optional<bool> stripAccents;
  std::string unkToken = "[UNK]";
  std::string continuingPrefix = "##";
  int maxInputCharsPerWord = 100;
};

/// A string-keyed map that finds std::string_view keys without a copy.
struct PieceHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using PieceIds = std::unordered_map<std::string, int, PieceHash, std::equal_to<>>;

class WordPieceTokenizer final : public Tokenizer {
 public:
  /// Throws std::invalid_argument when the unknown piece is neither in `vocab` nor added.
  WordPieceTokenizer(PieceIds vocab, WordPieceOptions options, std::vector<AddedToken> added,
                     SpecialTokenIds special, std::filesystem::path modelPath);

  std::vector<int> encode(std::string_view text) const override;
  /// Special added tokens left out; "##" pieces joined to the one before; the library's
  /// clean-up (" ." -> ".", " n't" -> "n't", ...).
  std::string decode(std::span<const int> ids) const override;
  int pieceToId(std::string_view piece) const override;
  std::string idToPiece(int id) const override;
  int vocabSize() const override { return static_cast<int>(m_pieces.size()); }
  const SpecialTokenIds& specialIds() const override { return m_special; }
  TokenizerKind kind() const override { return TokenizerKind::WordPiece; }
  const std::filesystem::path& modelPath() const override { return m_path; }

  /// BertNormalizer's output for `text` (UTF-8); for tests.
  std::string normalize(std::string_view text) const;

 private:
  struct Scratch;
  void encodeText(std::string_view text, std::vector<int>& out, Scratch& s) const;
  void encodeNormalized(std::string_view text, std::vector<int>& out, Scratch& s) const;
  void normalizeInto(std::string_view text, std::string& out, Scratch& s) const;
  bool normalizeAscii(std::string_view text, std::string& out) const;
  void encodeWord(std::string_view word, std::vector<int>& out, std::string& buf) const;

  PieceIds m_vocab;
  std::vector<std::string> m_pieces;
  std::vector<bool> m_specialId;
  WordPieceOptions m_options;
  bool m_stripAccents = true;
  AddedTokenMatcher m_rawAdded;
  AddedTokenMatcher m_normalizedAdded;
  PieceIds m_addedIds;
  SpecialTokenIds m_special;
  std::filesystem::path m_path;
  int m_unk = 0;
  std::size_t m_longestPiece = 0;
};

}  // namespace attnlab::core
