#include "core/data/blocks.h"

#include "core/errors/error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace attnlab::core {

namespace {

/// n, the number of validation lines, after the range checks splitLines documents.
std::int64_t validationLineCount(std::int64_t lineCount, const DataConfig& config) {
  if (config.validationLines < 0) {
    throw ConfigError("data.validation_lines", "must be 0 (use the fraction) or positive");
  }
  if (!(config.validationFraction >= 0.0 && config.validationFraction < 1.0)) {
    throw ConfigError("data.validation_fraction",
                      "must be in [0, 1), got " + std::to_string(config.validationFraction));
  }
  std::int64_t n = 0;
  if (config.validationLines > 0) {
    n = config.validationLines;
  } else if (config.validationFraction > 0.0) {
    n = std::max<std::int64_t>(
        1, std::llround(config.validationFraction * static_cast<double>(lineCount)));
  }
  if (n >= lineCount) {
    throw ConfigError(
        config.validationLines > 0 ? "data.validation_lines" : "data.validation_fraction",
        "takes " + std::to_string(n) + " of the corpus's " + std::to_string(lineCount) +
            " lines, leaving none for training");
  }
  return n;
}

/// floor(a * b / c) for 0 <= a <= c and 0 <= b < c without overflow: a = qc + r, so
/// ab/c = qb + rb/c with rb < c^2 (c, a corpus's line count, stays far below 2^31.5 for the
/// product rb to fit; beyond that the division goes through long double).
std::int64_t scaledFloor(std::int64_t a, std::int64_t b, std::int64_t c) {
  const std::int64_t q = a / c;
  const std::int64_t r = a % c;
  if (r == 0 || b <= INT64_MAX / r) return q * b + r * b / c;
  return q * b + static_cast<std::int64_t>(static_cast<long double>(r) * b / c);
}

}  // namespace

ValidationRule::ValidationRule(std::int64_t lineCount, const DataConfig& config)
    : m_lineCount(lineCount),
      m_count(validationLineCount(lineCount, config)),
      m_tail(config.validationLines > 0) {}

bool ValidationRule::isValidation(std::int64_t line) const {
  if (m_count == 0) return false;
  if (m_tail) return line >= m_lineCount - m_count;
  // Evenly spaced: line i is validation exactly when floor((i+1)n/L) > floor(i n/L).
  return scaledFloor(line + 1, m_count, m_lineCount) > scaledFloor(line, m_count, m_lineCount);
}

DataSplit splitLines(std::int64_t lineCount, const DataConfig& config) {
  const ValidationRule rule(lineCount, config);
  DataSplit split;
  split.trainLines.reserve(static_cast<std::size_t>(lineCount - rule.validationCount()));
  split.validationLines.reserve(static_cast<std::size_t>(rule.validationCount()));
  for (std::int64_t i = 0; i < lineCount; ++i) {
    (rule.isValidation(i) ? split.validationLines : split.trainLines).push_back(i);
  }
  return split;
}

void BlockSet::checkSequenceLength() const {
  if (m_sequenceLength < 3) {
    throw ConfigError("data.sequence_length", "must be at least 3 (<s>, one token, </s>), got " +
                                                  std::to_string(m_sequenceLength));
  }
}

BlockSet::BlockSet(TokenStore store, std::vector<std::int64_t> lines, int sequenceLength,
                   Packing packing, SpecialTokenIds specials)
    : m_explicit(true), m_sequenceLength(sequenceLength), m_packing(packing), m_specials(specials) {
  checkSequenceLength();
  if (!store.isOpen()) throw DataError("token store", "not open");
  m_tokens = TokenSequence(store);
  m_lines.reserve(lines.size());
  for (const std::int64_t l : lines) {
    if (l < 0 || l >= store.lineCount()) {
      throw DataError(store.path().string(), "line " + std::to_string(l) + " is out of range");
    }
    if (store.lineLength(l) > 0) m_lines.push_back(l);
  }
  if (m_packing == Packing::Pack) {
    m_starts.reserve(m_lines.size());
    std::int64_t at = 0;
    for (const std::int64_t l : m_lines) {
      m_starts.push_back(at);
      at += store.lineLength(l) + 1;  // + the </s> separator
    }
  }
  countBlocks(static_cast<std::int64_t>(m_lines.size()));
}

BlockSet::BlockSet(TokenSequence tokens, int sequenceLength, Packing packing,
                   SpecialTokenIds specials)
    : m_tokens(std::move(tokens)),
      m_sequenceLength(sequenceLength),
      m_packing(packing),
      m_specials(specials) {
  checkSequenceLength();
  if (!m_tokens.isOpen()) throw DataError("token store", "not open");
  if (m_tokens.hasEmptyLines()) {
    // Stores from before kTokenStoreNoEmptyLines (or written by hand): list the others.
    m_explicit = true;
    std::int64_t at = 0;
    for (std::int64_t l = 0; l < m_tokens.lineCount(); ++l) {
      const std::int64_t len = m_tokens.lineLength(l);
      if (len == 0) continue;
      m_lines.push_back(l);
      if (m_packing == Packing::Pack) m_starts.push_back(at);
      at += len + 1;
    }
    countBlocks(static_cast<std::int64_t>(m_lines.size()));
    return;
  }
  countBlocks(m_tokens.lineCount());
}

void BlockSet::countBlocks(std::int64_t lineCount) {
  m_lineTokens = 0;
  if (m_explicit) {
    for (const std::int64_t l : m_lines) m_lineTokens += m_tokens.lineLength(l);
  } else {
    m_lineTokens = m_tokens.tokenCount();
  }
  if (m_packing == Packing::Line) {
    m_blockCount = lineCount;
    return;
  }
  const std::int64_t content = m_sequenceLength - 2;
  // Every line but the last is followed by a </s> separator.
  m_streamLength = lineCount == 0 ? 0 : m_lineTokens + lineCount - 1;
  m_blockCount = (m_streamLength + content - 1) / content;
  const std::int64_t last = m_streamLength - (m_blockCount - 1) * content;
  if (m_blockCount > 1 && last < std::min<std::int64_t>(kMinLastBlockTokens, content)) {
    --m_blockCount;
  }
}

std::int64_t BlockSet::lineAtStream(std::int64_t position) const {
  if (!m_explicit) return m_tokens.lineAtStreamPosition(position);
  const auto it = std::upper_bound(m_starts.begin(), m_starts.end(), position);
  return static_cast<std::int64_t>(it - m_starts.begin()) - 1;
}

int BlockSet::fill(std::int64_t index, std::span<std::int64_t> out) const {
  const std::int64_t T = m_sequenceLength;
  const std::int64_t content = T - 2;
  std::int64_t k = 0;
  out[k++] = m_specials.bos;
  if (m_packing == Packing::Line) {
    const std::int64_t line = lineAt(index);
    const std::int64_t n = std::min(m_tokens.lineLength(line), content);
    m_tokens.copyIds(m_tokens.lineBegin(line), out.subspan(1, static_cast<std::size_t>(n)));
    k += n;
  } else {
    std::int64_t p = index * content;
    const std::int64_t end = std::min(p + content, m_streamLength);
    std::int64_t j = lineAtStream(p);  // the line holding stream position p
    while (p < end) {
      const std::int64_t line = lineAt(j);
      const std::int64_t len = m_tokens.lineLength(line);
      const std::int64_t offset = p - streamStart(j);
      if (offset < len) {
        const std::int64_t n = std::min(len - offset, end - p);
        m_tokens.copyIds(m_tokens.lineBegin(line) + offset,
                         out.subspan(static_cast<std::size_t>(k), static_cast<std::size_t>(n)));
        k += n;
        p += n;
      } else {
        out[static_cast<std::size_t>(k++)] = m_specials.eos;  // separator between lines
        ++p;
        ++j;
      }
    }
  }
  out[static_cast<std::size_t>(k++)] = m_specials.eos;
  const int real = static_cast<int>(k);
  for (; k < T; ++k) out[static_cast<std::size_t>(k)] = m_specials.pad;
  return real;
}

}  // namespace attnlab::core
