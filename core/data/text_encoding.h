#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab::core {

/// Converts ISO-8859-1 (Latin-1) bytes to UTF-8; every byte maps to one code point.
std::string latin1ToUtf8(std::string_view latin1);

/// True when `text` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool isValidUtf8(std::string_view text);

/// Byte offset of the first ill-formed UTF-8 sequence in `text`, or std::string_view::npos
/// when it is well-formed (same rules as isValidUtf8). Lets a report point at the byte.
std::size_t firstInvalidUtf8Offset(std::string_view text);

}  // namespace attnlab::core
