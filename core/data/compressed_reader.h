#pragma once

// Reads a corpus file line by line, plain or compressed (gzip, zstd), in fixed-size chunks:
// memory stays bounded by the chunk sizes and the longest line, whatever the file's size.
// zlib and libzstd stay inside compressed_reader.cpp.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace attnlab::core {

/// How a file's bytes are stored.
enum class Compression { None, Gzip, Zstd };

/// The compression a file's name promises: ".gz" gzip, ".zst" zstd, anything else none.
Compression compressionFromName(const std::filesystem::path& file);

/// The compression whose magic bytes `head` starts with (gzip 1F 8B, zstd 28 B5 2F FD),
/// or None. Lets an error about a binary file say that it is compressed data.
Compression compressionFromMagic(std::string_view head);

/// "gzip", "zstd" or "plain".
std::string_view compressionName(Compression c);

namespace detail {
class ByteSource;
}

/// The lines of one file, decompressed as its extension says (verified by magic bytes).
///
/// Every error is a DataError whose where() is the file's name as given: a file that cannot
/// be opened or read, a .gz/.zst file without its magic bytes, and corrupt or truncated
/// compressed data (the reason names the last line decoded completely).
class CorpusFileReader {
 public:
  /// Bytes decoded per read; also the compressed input buffer's size.
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

  /// Opens `file`; `name` is how errors refer to it.
  CorpusFileReader(const std::filesystem::path& file, std::string name);
  ~CorpusFileReader();
  CorpusFileReader(const CorpusFileReader&) = delete;
  CorpusFileReader& operator=(const CorpusFileReader&) = delete;

  Compression compression() const { return m_compression; }

  /// The first min(n, size) bytes of the decoded text, for the binary-file check. Only
  /// before the first nextLine (later the front of the buffer is gone).
  std::string_view head(std::size_t n);

  /// The next line without its '\n' (a CR before it is kept), also a last line without one.
  /// False at the end of the file.
  bool nextLine(std::string& line);

  /// Bytes of the file read so far (compressed bytes when it is compressed): progress
  /// against its size on disk.
  std::uint64_t fileBytesRead() const;
  /// The 1-based number of the line nextLine returned last (0 before the first).
  std::uint64_t lineNumber() const { return m_lineNo; }

 private:
  bool fill();

  std::string m_name;
  Compression m_compression;
  std::unique_ptr<detail::ByteSource> m_source;
  std::string m_buf;            ///< decoded bytes not yet returned, from m_pos
  std::size_t m_pos = 0;        ///< start of the next line in m_buf
  std::size_t m_scanned = 0;    ///< m_buf before this holds no '\n' after m_pos
  std::uint64_t m_lineNo = 0;   ///< lines returned
  std::uint64_t m_decoded = 0;  ///< '\n' decoded so far (for "after line N" in errors)
  bool m_started = false;       ///< nextLine was called: head() no longer works
};

}  // namespace attnlab::core
