#pragma once

// The parts of a SentencePiece `.model` file (a protobuf ModelProto) that another tokenizer
// library needs to tokenize as SentencePiece does (issue 29, export to Hugging Face): the
// pieces with their scores and types, the algorithm and unknown id of the trainer spec, and
// the normalizer spec. Read from the protobuf wire format directly (no protobuf library):
// ModelProto { 1: pieces { 1: piece, 2: score, 3: type }, 2: trainer_spec { 3: model_type,
// 24: treat_whitespace_as_suffix, 35: byte_fallback, 40: unk_id, 45: unk_piece },
// 3: normalizer_spec { 1: name, 2: precompiled_charsmap, 3: add_dummy_prefix,
// 4: remove_extra_whitespaces, 5: escape_whitespaces } }; other fields are skipped. Every
// length is checked against the bytes before it is used. Plain C++, no LibTorch.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::core {

/// SentencePiece's piece types (ModelProto.SentencePiece.Type).
enum class SentencePieceType {
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6
};

struct SentencePieceEntry {
  std::string piece;
  float score = 0.0f;
  SentencePieceType type = SentencePieceType::Normal;
};

/// TrainerSpec.model_type.
enum class SentencePieceAlgorithm { Unigram = 1, Bpe = 2, Word = 3, Char = 4 };

struct SentencePieceModelFile {
  std::vector<SentencePieceEntry> pieces;  ///< in id order
  SentencePieceAlgorithm algorithm = SentencePieceAlgorithm::Unigram;
  int unkId = 0;
  std::string unkPiece = "<unk>";
  bool byteFallback = false;
  bool whitespaceAsSuffix = false;
  std::string normalizerName;
  std::string precompiledCharsmap;  ///< raw bytes; empty for the identity normalizer
  bool addDummyPrefix = true;
  bool removeExtraWhitespaces = true;
  bool escapeWhitespaces = true;
};

/// Parses the bytes of a `.model` file. Throws DataError naming `where` and the field for a
/// truncated or damaged file (a length past the end, an unknown wire type, a piece without
/// its text, no pieces at all, an unk_id outside the pieces).
SentencePieceModelFile parseSentencePieceModel(std::string_view bytes, const std::string& where);

/// Reads and parses `path`; DataError naming it when it cannot be read.
SentencePieceModelFile readSentencePieceModel(const std::filesystem::path& path);

/// "unigram", "bpe", "word", "char".
const char* algorithmName(SentencePieceAlgorithm algorithm);

}  // namespace attnlab::core
