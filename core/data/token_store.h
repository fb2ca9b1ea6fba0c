#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace attnlab::core {

/// The fixed-size header at the start of a token store file (little-endian, 64 bytes).
///
/// File layout, every part 8-byte aligned:
///   [0, 64)            TokenStoreHeader
///   [64, 64 + 8(L+1))  line offset table: L+1 uint64, offsets[i] = index of line i's first
///                      token, offsets[L] = token count N; line i is [offsets[i], offsets[i+1])
///   then N ids         uint16 when vocabSize <= 65535 (idWidth 2), else uint32 (idWidth 4)
/// File size is exactly 64 + 8(L+1) + idWidth * N; ids carry no <s>/</s> (blocks add them).
struct TokenStoreHeader {
  char magic[8];                       ///< "ATLTOKS" + NUL
  std::uint32_t version;               ///< kTokenStoreVersion
  std::uint32_t idWidth;               ///< 2 or 4 bytes per id
  std::uint64_t corpusFingerprint;     ///< CorpusBuild::fingerprint of the encoded text
  std::uint64_t tokenizerFingerprint;  ///< FNV-1a 64 of the .model bytes
  std::uint32_t vocabSize;             ///< every id is < vocabSize
  std::uint32_t flags;                 ///< kTokenStoreNoEmptyLines when every line has ids
  std::uint64_t lineCount;             ///< L
  std::uint64_t tokenCount;            ///< N
  std::uint64_t reserved1;
};
static_assert(sizeof(TokenStoreHeader) == 64);

inline constexpr std::uint32_t kTokenStoreVersion = 1;
/// TokenStoreHeader::flags: no line of the store is empty (a BlockSet over whole stores
/// then needs no list of its non-empty lines). Version-1 files without it read as 0.
inline constexpr std::uint32_t kTokenStoreNoEmptyLines = 1;

/// The corpus encoded once: read-only, memory-mapped, cheap to copy (copies share the
/// mapping) and safe to read from several threads.
class TokenStore {
 public:
  TokenStore() = default;

  /// Opens an existing store; nullopt (with the reason in `whyNot`) when the file is
  /// missing, truncated, corrupt, of another format version, or its fingerprints differ
  /// from the expected ones.
  static std::optional<TokenStore> tryOpen(const std::filesystem::path& path,
                                           std::uint64_t corpusFingerprint,
                                           std::uint64_t tokenizerFingerprint,
                                           std::string* whyNot = nullptr);

  /// Writes a store from already encoded lines (atomically). Used by openOrBuild, and by
  /// tests and tools that have ids without a SentencePiece model.
  static void write(const std::filesystem::path& path,
                    const std::vector<std::vector<std::int32_t>>& lines, int vocabSize,
                    std::uint64_t corpusFingerprint, std::uint64_t tokenizerFingerprint);
  /// The same from the ids of all lines back to back and each line's length (how an
  /// encoding thread produces them; no per-line vectors).
  static void writeFlat(const std::filesystem::path& path, std::span<const std::int32_t> ids,
                        std::span<const std::uint64_t> lengths, int vocabSize,
                        std::uint64_t corpusFingerprint, std::uint64_t tokenizerFingerprint);

  bool isOpen() const { return m_map != nullptr; }
  const std::filesystem::path& path() const { return m_path; }
  const TokenStoreHeader& header() const { return *m_header; }
  std::int64_t lineCount() const { return static_cast<std::int64_t>(m_header->lineCount); }
  std::int64_t tokenCount() const { return static_cast<std::int64_t>(m_header->tokenCount); }
  int vocabSize() const { return static_cast<int>(m_header->vocabSize); }
  int idWidth() const { return static_cast<int>(m_header->idWidth); }
  bool hasEmptyLines() const { return (m_header->flags & kTokenStoreNoEmptyLines) == 0; }

  /// Index of line `line`'s first token in the whole id sequence.
  std::int64_t lineBegin(std::int64_t line) const {
    return static_cast<std::int64_t>(m_offsets[line]);
  }
  std::int64_t lineLength(std::int64_t line) const {
    return static_cast<std::int64_t>(m_offsets[line + 1] - m_offsets[line]);
  }
  /// The id at position `index` of the whole sequence.
  std::int32_t id(std::int64_t index) const {
    return m_header->idWidth == 2 ? static_cast<std::int32_t>(m_ids16[index])
                                  : static_cast<std::int32_t>(m_ids32[index]);
  }
  /// Copies ids [begin, begin + out.size()) of the whole sequence into `out`.
  void copyIds(std::int64_t begin, std::span<std::int64_t> out) const;
  /// The ids of one line.
  std::vector<int> line(std::int64_t line) const;

 private:
  struct Mapping;
  std::shared_ptr<const Mapping> m_map;
  std::filesystem::path m_path;
  const TokenStoreHeader* m_header = nullptr;
  const std::uint64_t* m_offsets = nullptr;
  const std::uint16_t* m_ids16 = nullptr;
  const std::uint32_t* m_ids32 = nullptr;
};

}  // namespace attnlab::core
