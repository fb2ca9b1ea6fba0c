#include "core/data/corpus_chunks.h"

#include "core/errors/error.h"

#include <cstring>
#include <fstream>
#include <string>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kScanBuffer = std::size_t{1} << 20;

/// Appends chunks as line ends go by; the last one is closed by finish().
class ChunkCutter {
 public:
  explicit ChunkCutter(std::uint64_t chunkBytes) : m_chunkBytes(chunkBytes) {}

  /// A line ends at byte `lineEnd` (one past its newline).
  void lineEnded(std::uint64_t lineEnd) {
    ++m_lines;
    if (lineEnd - m_current.byteBegin >= m_chunkBytes) close(lineEnd);
  }

  CorpusPlan finish(std::uint64_t bytes, bool unterminatedLine) {
    if (unterminatedLine) ++m_lines;
    if (bytes > m_current.byteBegin) close(bytes);
    m_plan.lineCount = m_current.firstLine;
    m_plan.bytes = bytes;
    return std::move(m_plan);
  }

 private:
  void close(std::uint64_t end) {
    m_current.byteEnd = end;
    m_current.lineCount = m_lines - m_current.firstLine;
    m_plan.chunks.push_back(m_current);
    m_current = CorpusChunk{end, end, m_lines, 0};
  }

  std::uint64_t m_chunkBytes;
  std::int64_t m_lines = 0;
  CorpusChunk m_current;
  CorpusPlan m_plan;
};

}  // namespace

CorpusPlan planCorpusChunks(const fs::path& corpusText, std::uint64_t chunkBytes) {
  std::ifstream in(corpusText, std::ios::binary);
  if (!in) throw DataError(corpusText.string(), "cannot open for reading");
  ChunkCutter cutter(chunkBytes == 0 ? 1 : chunkBytes);
  std::string buffer(kScanBuffer, '\0');
  std::uint64_t at = 0;
  char last = '\n';
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    const char* p = buffer.data();
    const char* end = p + got;
    while (const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p))) {
      p = static_cast<const char*>(nl) + 1;
      cutter.lineEnded(at + static_cast<std::uint64_t>(p - buffer.data()));
    }
    last = buffer[got - 1];
    at += got;
  }
  if (in.bad()) throw DataError(corpusText.string(), "read failed");
  return cutter.finish(at, last != '\n');
}

std::string readCorpusChunk(const fs::path& corpusText, const CorpusChunk& chunk) {
  std::ifstream in(corpusText, std::ios::binary);
  if (!in) throw DataError(corpusText.string(), "cannot open for reading");
  std::string text(chunk.byteEnd - chunk.byteBegin, '\0');
  in.seekg(static_cast<std::streamoff>(chunk.byteBegin));
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (static_cast<std::size_t>(in.gcount()) != text.size()) {
    throw DataError(corpusText.string(), "ends before byte " + std::to_string(chunk.byteEnd) +
                                             " (changed while the store was built?)");
  }
  return text;
}

}  // namespace attnlab::core
