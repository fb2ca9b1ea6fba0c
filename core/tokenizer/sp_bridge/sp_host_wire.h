// The wire format between attnlab_core and attnlab-spbridge-host, the helper process that
// serves the SentencePiece bridge's C table (sp_bridge_api.h) over a socket.
//
// Why a helper process: sanitizer runtimes (ASan, TSan) refuse dlopen(RTLD_DEEPBIND), and
// without it the bridge's bundled protobuf binds to LibTorch's and crashes. The host
// links no LibTorch, so it loads the same bridge module without RTLD_DEEPBIND; the
// sanitized process never maps SentencePiece at all. docs/hardening.md, Sanitizers.
//
// Framing: native byte order (both ends run on one machine, from one build). A request is
// an Op (u32) and its fields; every reply is {i64 result, bytes payload, bytes error}.
// Integers are fixed-width; bytes are an i64 length and that many bytes.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace attnlab::spwire {

enum class Op : std::uint32_t {
  Train = 1,  // i64 count, then count x (bytes key, bytes value)
  Load,       // bytes path                 -> result: handle (> 0) or -1
  Release,    // i64 handle
  VocabSize,  // i64 handle
  PieceToId,  // i64 handle, bytes piece
  IdToPiece,  // i64 handle, i64 id         -> payload: the piece
  Encode,     // i64 handle, bytes text     -> payload: the ids as int32 bytes
  Decode,     // i64 handle, bytes ids      -> payload: the text
};

/// The file descriptor the host reads requests from and writes replies to.
inline constexpr int kHostFd = 3;

/// A length above this is a broken stream, not a message (a corpus line is far smaller).
inline constexpr std::int64_t kMaxBytes = std::int64_t{1} << 31;

/// Builds one message, then sends it whole.
class Writer {
 public:
  Writer& u32(std::uint32_t v) { return raw(&v, sizeof v); }
  Writer& i64(std::int64_t v) { return raw(&v, sizeof v); }
  Writer& bytes(const void* data, std::size_t size) {
    i64(static_cast<std::int64_t>(size));
    return raw(data, size);
  }
  Writer& bytes(std::string_view s) { return bytes(s.data(), s.size()); }

  /// False when the peer is gone. MSG_NOSIGNAL: a dead peer must not raise SIGPIPE.
  bool sendTo(int fd) const {
    std::size_t sent = 0;
    while (sent < m_buf.size()) {
      const ssize_t n = ::send(fd, m_buf.data() + sent, m_buf.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

 private:
  Writer& raw(const void* data, std::size_t size) {
    m_buf.append(static_cast<const char*>(data), size);
    return *this;
  }
  std::string m_buf;
};

/// Reads fields from a stream; after the first short read or oversized length every
/// later read returns zero/empty and ok() is false.
class Reader {
 public:
  explicit Reader(int fd) : m_fd(fd) {}

  bool ok() const { return m_ok; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    exact(&v, sizeof v);
    return v;
  }
  std::int64_t i64() {
    std::int64_t v = 0;
    exact(&v, sizeof v);
    return v;
  }
  std::string bytes() {
    const std::int64_t n = i64();
    if (!m_ok || n < 0 || n > kMaxBytes) {
      m_ok = false;
      return {};
    }
    std::string s(static_cast<std::size_t>(n), '\0');
    exact(s.data(), s.size());
    return m_ok ? s : std::string();
  }

 private:
  void exact(void* out, std::size_t size) {
    auto* p = static_cast<char*>(out);
    while (m_ok && size > 0) {
      const ssize_t n = ::read(m_fd, p, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        m_ok = false;
        break;
      }
      p += n;
      size -= static_cast<std::size_t>(n);
    }
    if (!m_ok) std::memset(p, 0, size);
  }

  int m_fd;
  bool m_ok = true;
};

}  // namespace attnlab::spwire
