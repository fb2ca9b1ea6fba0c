#pragma once

// Several token stores read as one: the lines of shard 0, then those of shard 1, ... The
// training and validation parts of a sharded store (core/data/sharded_token_store.h) are
// each one TokenSequence; a BlockSet cuts its blocks from one.

#include "core/data/token_store.h"

#include <cstdint>
#include <span>
#include <vector>

namespace attnlab::core {

class TokenSequence {
 public:
  TokenSequence() = default;
  /// The stores in order; all open, with one vocabulary size (DataError otherwise).
  explicit TokenSequence(std::vector<TokenStore> parts);
  /// One store alone.
  explicit TokenSequence(TokenStore store);

  bool isOpen() const { return !m_parts.empty(); }
  std::int64_t lineCount() const { return m_lineStarts.empty() ? 0 : m_lineStarts.back(); }
  std::int64_t tokenCount() const { return m_tokenStarts.empty() ? 0 : m_tokenStarts.back(); }
  int vocabSize() const { return m_vocabSize; }
  /// True when some line holds no ids (stores written without kTokenStoreNoEmptyLines).
  bool hasEmptyLines() const { return m_hasEmptyLines; }
  const std::vector<TokenStore>& parts() const { return m_parts; }

  /// Index of line `line`'s first token in the whole sequence.
  std::int64_t lineBegin(std::int64_t line) const;
  std::int64_t lineLength(std::int64_t line) const;
  /// Copies ids [begin, begin + out.size()) of the whole sequence, across stores.
  void copyIds(std::int64_t begin, std::span<std::int64_t> out) const;
  /// The ids of one line.
  std::vector<int> line(std::int64_t line) const;

  /// With every line followed by one separator, the stream position of line l's first id
  /// is lineBegin(l) + l. The last line starting at or before stream position `position`.
  std::int64_t lineAtStreamPosition(std::int64_t position) const;

 private:
  /// The store holding line `line`, and the line's index inside it.
  std::pair<std::size_t, std::int64_t> partOfLine(std::int64_t line) const;

  std::vector<TokenStore> m_parts;
  std::vector<std::int64_t> m_lineStarts{0};   ///< first line of each part, then the count
  std::vector<std::int64_t> m_tokenStarts{0};  ///< first token of each part, then the count
  std::vector<std::size_t> m_partsWithLines;   ///< parts holding at least one line
  std::vector<std::int64_t> m_streamStarts;    ///< their first line's stream position
  int m_vocabSize = 0;
  bool m_hasEmptyLines = false;
};

}  // namespace attnlab::core
