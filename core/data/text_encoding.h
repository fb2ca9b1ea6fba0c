#pragma once

#include <string>
#include <string_view>

namespace attnlab::core {

/// Converts ISO-8859-1 (Latin-1) bytes to UTF-8; every byte maps to one code point.
std::string latin1ToUtf8(std::string_view latin1);

/// True when `text` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool isValidUtf8(std::string_view text);

}  // namespace attnlab::core
