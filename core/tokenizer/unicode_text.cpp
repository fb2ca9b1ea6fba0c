#include "core/tokenizer/unicode_text.h"

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include <stdexcept>
#include <vector>

namespace attnlab::core::unicode_text {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

std::size_t sequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

bool inCategoryMask(char32_t cp, std::uint32_t mask) {
  return (U_MASK(u_charType(static_cast<UChar32>(cp))) & mask) != 0;
}

void appendUtf16(std::u16string& out, char32_t cp) {
  if (cp < 0x10000) {
    out.push_back(static_cast<char16_t>(cp));
  } else {
    out.push_back(static_cast<char16_t>(U16_LEAD(cp)));
    out.push_back(static_cast<char16_t>(U16_TRAIL(cp)));
  }
}

std::u32string toUtf32(const char16_t* text, std::size_t length) {
  std::u32string out;
  out.reserve(length);
  for (std::size_t i = 0; i < length;) {
    UChar32 c;
    U16_NEXT(text, i, length, c);
    out.push_back(static_cast<char32_t>(c));
  }
  return out;
}

}  // namespace

char32_t decodeAt(std::string_view text, std::size_t pos, std::size_t& length) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  const std::size_t n = sequenceLength(lead);
  length = 1;
  if (n == 1) return lead;
  if (n == 0 || pos + n > text.size()) return kReplacement;
  char32_t cp = lead & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(text[pos + k]);
    if ((b & 0xC0) != 0x80) return kReplacement;
    cp = (cp << 6) | (b & 0x3F);
  }
  // Overlong three- and four-byte forms, surrogates, and beyond U+10FFFF.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return kReplacement;
  }
  length = n;
  return cp;
}

void decode(std::string_view text, std::basic_string<CodePoint>& out) {
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t length = 1;
    const char32_t cp = decodeAt(text, pos, length);
    out.push_back({cp, static_cast<std::uint32_t>(pos)});
    pos += length;
  }
}

void decode(std::string_view text, std::u32string& out) {
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t length = 1;
    out.push_back(decodeAt(text, pos, length));
    pos += length;
  }
}

void appendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool isWhiteSpace(char32_t cp) {
  return u_isUWhiteSpace(static_cast<UChar32>(cp)) != 0;
}

bool isOtherNotUnassigned(char32_t cp) {
  return inCategoryMask(cp, U_GC_CC_MASK | U_GC_CF_MASK | U_GC_CO_MASK | U_GC_CS_MASK);
}

bool isPunctuation(char32_t cp) {
  return inCategoryMask(cp, U_GC_P_MASK);
}
bool isLetter(char32_t cp) {
  return inCategoryMask(cp, U_GC_L_MASK);
}
bool isNumber(char32_t cp) {
  return inCategoryMask(cp, U_GC_N_MASK);
}
bool isNonspacingMark(char32_t cp) {
  return inCategoryMask(cp, U_GC_MN_MASK);
}

bool isAlphanumeric(char32_t cp) {
  return u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_ALPHABETIC) != 0 || isNumber(cp);
}

bool assignedBy(char32_t cp, int major) {
  UVersionInfo age;
  u_charAge(static_cast<UChar32>(cp), age);
  return age[0] != 0 && age[0] <= major;
}

std::u32string nfd(std::u32string_view text) {
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* normalizer = unorm2_getNFDInstance(&status);
  if (U_FAILURE(status)) throw std::runtime_error("ICU: no NFD normalizer");
  std::u16string source;
  source.reserve(text.size());
  for (const char32_t cp : text) appendUtf16(source, cp);
  const auto length = static_cast<int32_t>(source.size());
  std::vector<char16_t> target(static_cast<std::size_t>(length) * 3 + 16);
  int32_t written = unorm2_normalize(normalizer, source.data(), length, target.data(),
                                     static_cast<int32_t>(target.size()), &status);
  if (status == U_BUFFER_OVERFLOW_ERROR) {
    status = U_ZERO_ERROR;
    target.resize(static_cast<std::size_t>(written));
    written = unorm2_normalize(normalizer, source.data(), length, target.data(), written, &status);
  }
  if (U_FAILURE(status)) throw std::runtime_error("ICU: NFD failed");
  return toUtf32(target.data(), static_cast<std::size_t>(written));
}

void appendLowercase(std::u32string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
    return;
  }
  std::u16string source;
  appendUtf16(source, cp);
  char16_t target[8];
  UErrorCode status = U_ZERO_ERROR;
  const int32_t written =
      u_strToLower(target, 8, source.data(), static_cast<int32_t>(source.size()), "", &status);
  if (U_FAILURE(status)) {
    out.push_back(static_cast<char32_t>(u_tolower(static_cast<UChar32>(cp))));
    return;
  }
  out += toUtf32(target, static_cast<std::size_t>(written));
}

}  // namespace attnlab::core::unicode_text
