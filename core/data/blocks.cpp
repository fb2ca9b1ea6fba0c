#include "core/data/blocks.h"

#include "core/errors/error.h"

#include <algorithm>
#include <cmath>

namespace attnlab::core {

DataSplit splitLines(std::int64_t lineCount, const DataConfig& config) {
  if (config.validationLines < 0) {
    throw ConfigError("data.validation_lines", "must be 0 (use the fraction) or positive");
  }
  if (!(config.validationFraction >= 0.0 && config.validationFraction < 1.0)) {
    throw ConfigError("data.validation_fraction",
                      "must be in [0, 1), got " + std::to_string(config.validationFraction));
  }
  DataSplit split;
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
  split.trainLines.reserve(static_cast<std::size_t>(lineCount - n));
  split.validationLines.reserve(static_cast<std::size_t>(n));
  // r = (i * n) mod lineCount, advanced by n per line: line i is validation exactly when
  // floor((i+1)n/L) > floor(i n/L), without products that could overflow.
  std::int64_t r = 0;
  for (std::int64_t i = 0; i < lineCount; ++i) {
    bool validation = false;
    if (config.validationLines > 0) {
      validation = i >= lineCount - n;
    } else if (n > 0) {
      r += n;
      validation = r >= lineCount;
      if (validation) r -= lineCount;
    }
    (validation ? split.validationLines : split.trainLines).push_back(i);
  }
  return split;
}

BlockSet::BlockSet(TokenStore store, std::vector<std::int64_t> lines, int sequenceLength,
                   Packing packing, SpecialTokenIds specials)
    : m_store(std::move(store)),
      m_sequenceLength(sequenceLength),
      m_packing(packing),
      m_specials(specials) {
  if (sequenceLength < 3) {
    throw ConfigError("data.sequence_length", "must be at least 3 (<s>, one token, </s>), got " +
                                                  std::to_string(sequenceLength));
  }
  if (!m_store.isOpen()) throw DataError("token store", "not open");
  m_lines.reserve(lines.size());
  for (const std::int64_t l : lines) {
    if (l < 0 || l >= m_store.lineCount()) {
      throw DataError(m_store.path().string(), "line " + std::to_string(l) + " is out of range");
    }
    const std::int64_t len = m_store.lineLength(l);
    if (len == 0) continue;
    m_lines.push_back(l);
    m_lineTokens += len;
  }
  const std::int64_t content = sequenceLength - 2;
  if (m_packing == Packing::Line) {
    m_blockCount = static_cast<std::int64_t>(m_lines.size());
    return;
  }
  m_starts.reserve(m_lines.size());
  std::int64_t at = 0;
  for (const std::int64_t l : m_lines) {
    m_starts.push_back(at);
    at += m_store.lineLength(l) + 1;  // + the </s> separator
  }
  m_streamLength = m_lines.empty() ? 0 : at - 1;  // no separator after the last line
  m_blockCount = (m_streamLength + content - 1) / content;
  const std::int64_t last = m_streamLength - (m_blockCount - 1) * content;
  if (m_blockCount > 1 && last < std::min<std::int64_t>(kMinLastBlockTokens, content)) {
    --m_blockCount;
  }
}

int BlockSet::fill(std::int64_t index, std::span<std::int64_t> out) const {
  const std::int64_t T = m_sequenceLength;
  const std::int64_t content = T - 2;
  std::int64_t k = 0;
  out[k++] = m_specials.bos;
  if (m_packing == Packing::Line) {
    const std::int64_t line = m_lines[static_cast<std::size_t>(index)];
    const std::int64_t n = std::min(m_store.lineLength(line), content);
    m_store.copyIds(m_store.lineBegin(line), out.subspan(1, static_cast<std::size_t>(n)));
    k += n;
  } else {
    std::int64_t p = index * content;
    const std::int64_t end = std::min(p + content, m_streamLength);
    // The line holding stream position p: the last one starting at or before it.
    auto it = std::upper_bound(m_starts.begin(), m_starts.end(), p);
    std::size_t j = static_cast<std::size_t>(it - m_starts.begin()) - 1;
    while (p < end) {
      const std::int64_t line = m_lines[j];
      const std::int64_t len = m_store.lineLength(line);
      const std::int64_t offset = p - m_starts[j];
      if (offset < len) {
        const std::int64_t n = std::min(len - offset, end - p);
        m_store.copyIds(m_store.lineBegin(line) + offset,
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
