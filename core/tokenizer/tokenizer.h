#pragma once

// The engine's tokenizer interface (issue 29): SentencePiece (the runs AttnLab trains) and
// the tokenizers of Hugging Face folders (WordPiece, byte-level BPE) behind one type, so the
// inspector, the analyses and the trainer take any of them.

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::core {

/// Ids of the special pieces every tokenizer the engine uses has. In a SentencePiece model
/// of AttnLab's: <pad> <s> </s> <mask> <unk> (ids 0..4); in a BERT folder: [PAD] [CLS]
/// [SEP] [MASK] [UNK]; in a RoBERTa folder: <pad> <s> </s> <mask> <unk> at the folder's ids.
struct SpecialTokenIds {
  int pad = 0;   ///< padding
  int bos = 1;   ///< starts a sequence (<s>, [CLS])
  int eos = 2;   ///< ends a sequence (</s>, [SEP])
  int mask = 3;  ///< the MLM mask (<mask>, [MASK])
  int unk = 4;   ///< unknown (<unk>, [UNK])
};

/// FairseqSentencePiece: a SentencePiece model read with fairseq's id layout (XLM-R's).
enum class TokenizerKind { SentencePiece, WordPiece, ByteLevelBpe, FairseqSentencePiece };

/// "sentencepiece", "wordpiece", "byte-level-bpe", "sentencepiece-fairseq".
std::string_view tokenizerKindName(TokenizerKind kind);

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  /// The text's piece ids, without the special pieces that start and end a sequence.
  virtual std::vector<int> encode(std::string_view text) const = 0;
  virtual std::string decode(std::span<const int> ids) const = 0;
  /// The piece's id; the unknown piece's id when the vocabulary lacks it.
  virtual int pieceToId(std::string_view piece) const = 0;
  /// The piece as the vocabulary spells it ("##ing", "Ġthe", "▁the").
  virtual std::string idToPiece(int id) const = 0;
  /// The piece as a person reads it, the same way for every kind (piece_display.h): "▁the"
  /// for SentencePiece's "▁the" and byte-level BPE's "Ġthe", "é" for "Ã©". For views and
  /// exports; logic that reads pieces uses idToPiece().
  virtual std::string displayPiece(int id) const { return idToPiece(id); }
  virtual int vocabSize() const = 0;
  virtual const SpecialTokenIds& specialIds() const = 0;
  virtual TokenizerKind kind() const = 0;
  /// The file the tokenizer was read from (a .model, vocab.txt, vocab.json or tokenizer.json).
  virtual const std::filesystem::path& modelPath() const = 0;

 protected:
  Tokenizer() = default;
  Tokenizer(const Tokenizer&) = default;
  Tokenizer& operator=(const Tokenizer&) = default;
};

/// The ids of the period pieces (piece_roles.h: isPeriodPiece) `tokenizer` has, none unknown:
/// guidance's [Period] and the analyses' period roles.
std::vector<int> periodIds(const Tokenizer& tokenizer);

}  // namespace attnlab::core
