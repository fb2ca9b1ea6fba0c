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
  // Stream positions grow with the line index, so a binary search over lines finds it.
  std::int64_t lo = 0;
  std::int64_t hi = lineCount();  // invariant: start(lo) <= position < start(hi)
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (lineBegin(mid) + mid <= position) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace attnlab::core
