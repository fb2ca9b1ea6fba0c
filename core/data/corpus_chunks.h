#pragma once

// The normalised corpus (corpus.txt) cut into chunks of whole lines, each encoded on its own
// into one shard of the token store: the unit of parallel encoding and of resumption.

#include <cstdint>
#include <filesystem>
#include <vector>

namespace attnlab::core {

/// Lines [firstLine, firstLine + lineCount) of the corpus, bytes [byteBegin, byteEnd) of it
/// (their newlines included).
struct CorpusChunk {
  std::uint64_t byteBegin = 0;
  std::uint64_t byteEnd = 0;
  std::int64_t firstLine = 0;
  std::int64_t lineCount = 0;
};

struct CorpusPlan {
  std::vector<CorpusChunk> chunks;
  std::int64_t lineCount = 0;
  std::uint64_t bytes = 0;
};

/// Bytes of text per chunk by default: a shard of about 8 MB of ids, and what each encoding
/// thread holds at once (its text plus ids), so memory is bounded by threads, not corpus.
inline constexpr std::uint64_t kDefaultChunkBytes = std::uint64_t{16} << 20;

/// Reads `corpusText` once (in fixed-size buffers) and cuts it after the first line end at or
/// beyond every `chunkBytes` bytes. A last line without a newline counts as a line.
/// Throws DataError naming the file when it cannot be read.
CorpusPlan planCorpusChunks(const std::filesystem::path& corpusText,
                            std::uint64_t chunkBytes = kDefaultChunkBytes);

/// Reads the chunk's bytes from the corpus file. Throws DataError naming the file.
std::string readCorpusChunk(const std::filesystem::path& corpusText, const CorpusChunk& chunk);

}  // namespace attnlab::core
