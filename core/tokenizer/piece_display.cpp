#include "core/tokenizer/piece_display.h"

#include <cstdio>

namespace attnlab::core {
namespace {

/// The length of the valid UTF-8 sequence at `pos` (2 to 4 bytes, no overlong forms, no
/// surrogates), or 0.
std::size_t multibyteLength(std::string_view s, std::size_t pos) {
  const auto lead = static_cast<unsigned char>(s[pos]);
  const std::size_t n = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (n == 0 || lead > 0xF4 || pos + n > s.size()) return 0;
  for (std::size_t i = 1; i < n; ++i)
    if ((static_cast<unsigned char>(s[pos + i]) & 0xC0) != 0x80) return 0;
  const auto second = static_cast<unsigned char>(s[pos + 1]);
  if (lead == 0xE0 && second < 0xA0) return 0;  // overlong
  if (lead == 0xED && second > 0x9F) return 0;  // surrogate
  if (lead == 0xF0 && second < 0x90) return 0;  // overlong
  if (lead == 0xF4 && second > 0x8F) return 0;  // above U+10FFFF
  return n;
}

void appendBytePiece(std::string& out, unsigned char b) {
  char text[8];
  std::snprintf(text, sizeof text, "<0x%02X>", b);
  out += text;
}

}  // namespace

std::string displayBytes(std::string_view bytes) {
  std::string out;
  for (std::size_t pos = 0; pos < bytes.size();) {
    const auto b = static_cast<unsigned char>(bytes[pos]);
    if (b == ' ') {
      out += "\xE2\x96\x81";  // U+2581, SentencePiece's word-start mark
      ++pos;
    } else if (b < 0x20 || b == 0x7F) {
      appendBytePiece(out, b);
      ++pos;
    } else if (b < 0x80) {
      out.push_back(static_cast<char>(b));
      ++pos;
    } else if (const auto n = multibyteLength(bytes, pos); n > 0) {
      out.append(bytes, pos, n);
      pos += n;
    } else {
      appendBytePiece(out, b);
      ++pos;
    }
  }
  return out;
}

}  // namespace attnlab::core
