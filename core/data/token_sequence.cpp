#include "core/data/token_sequence.h"

#include "core/errors/error.h"

#include <algorithm>

namespace attnlab::core {

TokenSequence::TokenSequence(TokenStore store) : TokenSequence(std::vector<TokenStore>{store}) {}

TokenSequence::TokenSequence(std::vector<TokenStore> parts) : m_parts(std::move(parts)) {
  for (const TokenStore& part : m_parts) {
    if (!part.isOpen()) throw DataError("token store", "not open");
    if (m_vocabSize == 0) m_vocabSize = part.vocabSize();
    if (part.vocabSize() != m_vocabSize) {
      throw DataError(part.path().string(), "vocabulary size " + std::to_string(part.vocabSize()) +
                                                " differs from " + std::to_string(m_vocabSize) +
                                                " of the store before it");
    }
    m_hasEmptyLines = m_hasEmptyLines || (part.lineCount() > 0 && part.hasEmptyLines());
    if (part.lineCount() > 0) {
      m_partsWithLines.push_back(m_lineStarts.size() - 1);
      m_streamStarts.push_back(m_tokenStarts.back() + m_lineStarts.back());
    }
    m_lineStarts.push_back(m_lineStarts.back() + part.lineCount());
    m_tokenStarts.push_back(m_tokenStarts.back() + part.tokenCount());
  }
}

std::pair<std::size_t, std::int64_t> TokenSequence::partOfLine(std::int64_t line) const {
  // The last part starting at or before `line` that holds lines (empty parts are skipped).
  const auto it = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end() - 1, line);
  const auto part = static_cast<std::size_t>(it - m_lineStarts.begin()) - 1;
  return {part, line - m_lineStarts[part]};
}

std::int64_t TokenSequence::lineBegin(std::int64_t line) const {
  const auto [part, local] = partOfLine(line);
  return m_tokenStarts[part] + m_parts[part].lineBegin(local);
}

std::int64_t TokenSequence::lineLength(std::int64_t line) const {
  const auto [part, local] = partOfLine(line);
  return m_parts[part].lineLength(local);
}

void TokenSequence::copyIds(std::int64_t begin, std::span<std::int64_t> out) const {
  std::size_t done = 0;
  while (done < out.size()) {
    const std::int64_t at = begin + static_cast<std::int64_t>(done);
    const auto it = std::upper_bound(m_tokenStarts.begin(), m_tokenStarts.end() - 1, at);
    const auto part = static_cast<std::size_t>(it - m_tokenStarts.begin()) - 1;
    const std::int64_t local = at - m_tokenStarts[part];
    const auto n = std::min<std::size_t>(
        out.size() - done, static_cast<std::size_t>(m_parts[part].tokenCount() - local));
    m_parts[part].copyIds(local, out.subspan(done, n));
    done += n;
  }
}

std::vector<int> TokenSequence::line(std::int64_t line) const {
  const auto [part, local] = partOfLine(line);
  return m_parts[part].line(local);
}

std::int64_t TokenSequence::lineAtStreamPosition(std::int64_t position) const {
  // The part first, from numbers held here, then a binary search inside that one part's
  // offset table: a block touches a few pages of one shard, not pages all over the store.
  const auto it = std::upper_bound(m_streamStarts.begin(), m_streamStarts.end(), position);
  const auto k =
      static_cast<std::size_t>(std::max<std::ptrdiff_t>(it - m_streamStarts.begin(), 1) - 1);
  const std::size_t p = m_partsWithLines[k];
  const TokenStore& part = m_parts[p];
  const std::int64_t local = position - m_streamStarts[k];
  std::int64_t a = 0;
  std::int64_t b = part.lineCount();  // invariant: start(a) <= local < start(b)
  while (b - a > 1) {
    const std::int64_t mid = a + (b - a) / 2;
    if (part.lineBegin(mid) + mid <= local) {
      a = mid;
    } else {
      b = mid;
    }
  }
  return m_lineStarts[p] + a;
}

}  // namespace attnlab::core
