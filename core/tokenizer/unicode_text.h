#pragma once

// The Unicode facts the Hugging Face tokenizers need (issue 29): general categories, the
// White_Space property, NFD and per-code-point full lowercase, all from ICU. ICU stays private
// to unicode_text.cpp; callers see code points (char32_t) and UTF-8 only.

#include <cstdint>
#include <string>
#include <string_view>

namespace attnlab::core::unicode_text {

/// One code point of a UTF-8 text and the byte offset it starts at.
struct CodePoint {
  char32_t cp;
  std::uint32_t offset;
};

/// The code point at `text[pos]` and the byte length it takes. Malformed UTF-8 reads as
/// U+FFFD with length 1 (the lossy decoding every caller wants).
char32_t decodeAt(std::string_view text, std::size_t pos, std::size_t& length);
/// Appends the code points of `text` with their offsets.
void decode(std::string_view text, std::basic_string<CodePoint>& out);
void decode(std::string_view text, std::u32string& out);
void appendUtf8(std::string& out, char32_t cp);

/// Unicode's White_Space property (Rust's char::is_whitespace; Oniguruma's \s).
bool isWhiteSpace(char32_t cp);
/// General category C other than Cn: Cc, Cf, Co, Cs (BERT's "control" characters).
bool isOtherNotUnassigned(char32_t cp);
/// General category P (Pc Pd Ps Pe Pi Pf Po).
bool isPunctuation(char32_t cp);
/// General category L (Lu Ll Lt Lm Lo).
bool isLetter(char32_t cp);
/// General category N (Nd Nl No).
bool isNumber(char32_t cp);
/// General category Mn.
bool isNonspacingMark(char32_t cp);
/// Alphabetic or N (Rust's char::is_alphanumeric).
bool isAlphanumeric(char32_t cp);

/// Whether `cp` was assigned in Unicode `major`.0 or earlier (its Age property).
bool assignedBy(char32_t cp, int major);

/// The canonical decomposition (NFD) of `text`, code points in and out.
std::u32string nfd(std::u32string_view text);
/// Appends the full lowercase mapping of one code point (U+0130 -> "i̇"), with no context
/// (a final capital sigma becomes σ, as Rust's char::to_lowercase has it).
void appendLowercase(std::u32string& out, char32_t cp);

}  // namespace attnlab::core::unicode_text
