#include "core/data/compressed_reader.h"

#include "core/errors/error.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <new>
#include <stdexcept>
#include <vector>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace detail {

/// The decoded bytes of one file. read() stores up to `cap` bytes at `dst` and returns how
/// many, 0 only at the end; bad compressed data throws DecodeFailure.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::size_t read(char* dst, std::size_t cap) = 0;
  /// Bytes of the file itself read so far (compressed bytes for a compressed file).
  virtual std::uint64_t fileBytesRead() const = 0;
};

}  // namespace detail

namespace {

/// Compressed data that cannot be decoded. The reader adds the file and the line reached.
struct DecodeFailure {
  std::string problem;       ///< e.g. "truncated gzip stream"
  std::string detail;        ///< the library's message, or a hint
  std::size_t produced = 0;  ///< bytes stored at dst before the failure (counted for lines)
};

constexpr std::string_view kGzipMagic = "\x1F\x8B";
constexpr std::string_view kZstdMagic = "\x28\xB5\x2F\xFD";

/// A zstd skippable frame (magic 0x184D2A50..5F, little-endian) may open a valid stream:
/// pzstd writes one first.
bool isZstdSkippableFrame(std::string_view head) {
  return head.size() >= 4 && (static_cast<unsigned char>(head[0]) & 0xF0) == 0x50 &&
         head.substr(1, 3) == "\x2A\x4D\x18";
}

/// A file's raw bytes, read in pieces.
class RawInput {
 public:
  RawInput(const fs::path& file, std::string name)
      : m_in(file, std::ios::binary), m_name(std::move(name)) {
    if (!m_in) throw DataError(m_name, "cannot open for reading");
  }

  /// Up to `cap` bytes at `dst`; 0 at the end of the file. Throws DataError when reading fails.
  std::size_t read(char* dst, std::size_t cap) {
    if (m_eof) return 0;
    m_in.read(dst, static_cast<std::streamsize>(cap));
    if (m_in.bad()) throw DataError(m_name, "read failed");
    const auto got = static_cast<std::size_t>(m_in.gcount());
    m_eof = got < cap;
    m_bytesRead += got;
    return got;
  }

  const std::string& name() const { return m_name; }
  std::uint64_t bytesRead() const { return m_bytesRead; }

 private:
  std::ifstream m_in;
  std::string m_name;
  bool m_eof = false;
  std::uint64_t m_bytesRead = 0;
};

class PlainSource final : public detail::ByteSource {
 public:
  PlainSource(const fs::path& file, const std::string& name) : m_raw(file, name) {}
  std::size_t read(char* dst, std::size_t cap) override { return m_raw.read(dst, cap); }
  std::uint64_t fileBytesRead() const override { return m_raw.bytesRead(); }

 private:
  RawInput m_raw;
};

/// The compressed bytes behind a decoder: one input buffer, refilled when used up.
class CompressedInput {
 public:
  CompressedInput(const fs::path& file, const std::string& name, Compression kind)
      : m_raw(file, name), m_buf(CorpusFileReader::kChunkBytes) {
    refill();
    // The extension alone would let a mislabelled file fail later with a cryptic decoder
    // message (or none: an empty .gz); the magic bytes tell what it really is.
    const std::string_view head(m_buf.data(), m_size);
    const bool ok = kind == Compression::Gzip
                        ? head.substr(0, 2) == kGzipMagic
                        : head.substr(0, 4) == kZstdMagic || isZstdSkippableFrame(head);
    if (!ok) {
      const std::string ext = kind == Compression::Gzip ? ".gz" : ".zst";
      throw DataError(name, "is named " + ext + " but is not " +
                                std::string(compressionName(kind)) +
                                " data (its first bytes "
                                "are not the " +
                                std::string(compressionName(kind)) +
                                " magic number): recompress it, or rename it if it is text");
    }
  }

  /// Reads the next piece of the file; false at its end.
  bool refill() {
    m_size = m_raw.read(m_buf.data(), m_buf.size());
    m_used = 0;
    return m_size > 0;
  }

  const char* data() const { return m_buf.data() + m_used; }
  std::size_t available() const { return m_size - m_used; }
  void consume(std::size_t n) { m_used += n; }
  std::uint64_t fileBytesRead() const { return m_raw.bytesRead(); }
  /// Consumes the zero bytes at the front; true when that used up the buffer.
  bool skipZeros() {
    while (m_used < m_size && m_buf[m_used] == '\0') ++m_used;
    return m_used == m_size;
  }

 private:
  RawInput m_raw;
  std::vector<char> m_buf;
  std::size_t m_size = 0;  ///< bytes of m_buf filled
  std::size_t m_used = 0;  ///< bytes of those already given to the decoder
};

const char* kTruncatedHint =
    "the file ends inside the compressed data: a partial download or copy?";

/// gzip, including several members one after another (`cat a.gz b.gz`, pigz, bgzip).
class GzipSource final : public detail::ByteSource {
 public:
  GzipSource(const fs::path& file, const std::string& name) : m_in(file, name, Compression::Gzip) {
    // 16 + MAX_WBITS: the gzip wrapper only (header, CRC-32 and length checked by zlib).
    if (inflateInit2(&m_z, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();
  }
  ~GzipSource() override { inflateEnd(&m_z); }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  std::uint64_t fileBytesRead() const override { return m_in.fileBytesRead(); }
  std::size_t read(char* dst, std::size_t cap) override {
    m_z.next_out = reinterpret_cast<Bytef*>(dst);
    m_z.avail_out = static_cast<uInt>(cap);
    while (m_z.avail_out == cap) {
      const bool haveInput = m_in.available() > 0 || m_in.refill();
      if (!haveInput && !m_inMember) return 0;  // every member ended: a clean end
      if (!m_inMember) {
        // Zero bytes after a member (tape-block padding) are ignored, as gzip -d does.
        if (m_in.skipZeros()) continue;
        inflateReset(&m_z);  // the next member of a multi-member file
        m_inMember = true;
      }
      m_z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(m_in.data()));
      m_z.avail_in = static_cast<uInt>(m_in.available());
      const int rc = inflate(&m_z, Z_NO_FLUSH);
      m_in.consume(m_in.available() - m_z.avail_in);
      const std::size_t produced = cap - m_z.avail_out;
      if (rc == Z_STREAM_END) {
        m_inMember = false;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw DecodeFailure{"corrupt gzip data", m_z.msg != nullptr ? m_z.msg : "zlib error",
                            produced};
      }
      // Without input zlib may still flush output it holds; no output and no end either
      // means the member stops short.
      if (!haveInput && produced == 0 && m_inMember)
        throw DecodeFailure{"truncated gzip stream", kTruncatedHint};
    }
    return cap - m_z.avail_out;
  }

 private:
  CompressedInput m_in;
  z_stream m_z{};
  bool m_inMember = true;
};

/// zstd, including several frames one after another and skippable frames.
class ZstdSource final : public detail::ByteSource {
 public:
  ZstdSource(const fs::path& file, const std::string& name)
      : m_in(file, name, Compression::Zstd), m_dctx(ZSTD_createDCtx()) {
    if (m_dctx == nullptr) throw std::bad_alloc();
  }
  ~ZstdSource() override { ZSTD_freeDCtx(m_dctx); }
  ZstdSource(const ZstdSource&) = delete;
  ZstdSource& operator=(const ZstdSource&) = delete;

  std::uint64_t fileBytesRead() const override { return m_in.fileBytesRead(); }
  std::size_t read(char* dst, std::size_t cap) override {
    ZSTD_outBuffer out{dst, cap, 0};
    while (out.pos == 0) {
      const bool haveInput = m_in.available() > 0 || m_in.refill();
      if (!haveInput && m_pending == 0) return 0;  // the last frame ended: a clean end
      ZSTD_inBuffer in{m_in.data(), m_in.available(), 0};
      m_pending = ZSTD_decompressStream(m_dctx, &out, &in);
      m_in.consume(in.pos);
      if (ZSTD_isError(m_pending) != 0) {
        throw DecodeFailure{"corrupt zstd data", ZSTD_getErrorName(m_pending), out.pos};
      }
      // As for gzip: without input the decoder may still flush; nothing and no frame end
      // means the data is cut short.
      if (!haveInput && out.pos == 0 && m_pending != 0)
        throw DecodeFailure{"truncated zstd stream", kTruncatedHint};
    }
    return out.pos;
  }

 private:
  CompressedInput m_in;
  ZSTD_DCtx* m_dctx;
  std::size_t m_pending = 1;  ///< ZSTD_decompressStream's last answer: 0 = a frame ended
};

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

Compression compressionFromName(const fs::path& file) {
  const std::string ext = lowercase(file.extension().string());
  if (ext == ".gz") return Compression::Gzip;
  if (ext == ".zst") return Compression::Zstd;
  return Compression::None;
}

Compression compressionFromMagic(std::string_view head) {
  if (head.substr(0, 2) == kGzipMagic) return Compression::Gzip;
  if (head.substr(0, 4) == kZstdMagic || isZstdSkippableFrame(head)) return Compression::Zstd;
  return Compression::None;
}

std::string_view compressionName(Compression c) {
  switch (c) {
    case Compression::None:
      return "plain";
    case Compression::Gzip:
      return "gzip";
    case Compression::Zstd:
      return "zstd";
  }
  return "plain";
}

CorpusFileReader::CorpusFileReader(const fs::path& file, std::string name)
    : m_name(std::move(name)), m_compression(compressionFromName(file)) {
  switch (m_compression) {
    case Compression::None:
      m_source = std::make_unique<PlainSource>(file, m_name);
      break;
    case Compression::Gzip:
      m_source = std::make_unique<GzipSource>(file, m_name);
      break;
    case Compression::Zstd:
      m_source = std::make_unique<ZstdSource>(file, m_name);
      break;
  }
}

CorpusFileReader::~CorpusFileReader() = default;

std::uint64_t CorpusFileReader::fileBytesRead() const {
  return m_source->fileBytesRead();
}

std::string_view CorpusFileReader::head(std::size_t n) {
  if (m_started) throw std::logic_error("CorpusFileReader::head after nextLine");
  while (m_buf.size() < n && fill()) {
  }
  return std::string_view(m_buf).substr(0, n);
}

bool CorpusFileReader::nextLine(std::string& line) {
  m_started = true;
  for (;;) {
    const std::size_t nl = m_buf.find('\n', m_scanned);
    if (nl != std::string::npos) {
      line.assign(m_buf, m_pos, nl - m_pos);
      m_pos = m_scanned = nl + 1;
      ++m_lineNo;
      return true;
    }
    m_scanned = m_buf.size();
    if (!fill()) break;
  }
  if (m_pos == m_buf.size()) return false;
  line.assign(m_buf, m_pos);  // the last line has no '\n'
  m_pos = m_scanned = m_buf.size();
  ++m_lineNo;
  return true;
}

bool CorpusFileReader::fill() {
  // The lines already returned go first, so the buffer holds at most a partial line and one
  // chunk: memory does not grow with the file.
  if (m_pos > 0) {
    m_buf.erase(0, m_pos);
    m_scanned -= m_pos;
    m_pos = 0;
  }
  const std::size_t old = m_buf.size();
  m_buf.resize(old + kChunkBytes);
  std::size_t got = 0;
  try {
    got = m_source->read(m_buf.data() + old, kChunkBytes);
  } catch (const DecodeFailure& f) {
    const auto first = m_buf.begin() + static_cast<std::ptrdiff_t>(old);
    m_decoded += static_cast<std::uint64_t>(
        std::count(first, first + static_cast<std::ptrdiff_t>(f.produced), '\n'));
    const std::string reached =
        m_decoded == 0 ? " in line 1" : " after line " + std::to_string(m_decoded);
    throw DataError(m_name, f.problem + reached + ": " + f.detail);
  }
  m_buf.resize(old + got);
  m_decoded += static_cast<std::uint64_t>(
      std::count(m_buf.begin() + static_cast<std::ptrdiff_t>(old), m_buf.end(), '\n'));
  return got > 0;
}

}  // namespace attnlab::core
