#include "core/tokenizer/added_tokens.h"

#include "core/tokenizer/unicode_text.h"

#include <algorithm>

namespace attnlab::core {

namespace {

namespace ut = unicode_text;

// The code point that ends at `end` (UTF-8), stepping back over continuation bytes.
char32_t lastCodePoint(std::string_view text, std::size_t end, std::size_t& start) {
  start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  std::size_t length = 1;
  return ut::decodeAt(text, start, length);
}

bool isWordChar(char32_t cp) {
  return cp == '_' || ut::isAlphanumeric(cp);
}

// Where the whitespace run that ends at `end` starts (never before `floor`).
std::size_t whitespaceBefore(std::string_view text, std::size_t end, std::size_t floor) {
  while (end > floor) {
    std::size_t start = 0;
    if (!ut::isWhiteSpace(lastCodePoint(text, end, start))) break;
    end = start;
  }
  return std::max(end, floor);
}

std::size_t whitespaceAfter(std::string_view text, std::size_t pos) {
  while (pos < text.size()) {
    std::size_t length = 1;
    if (!ut::isWhiteSpace(ut::decodeAt(text, pos, length))) break;
    pos += length;
  }
  return pos;
}

bool standsAlone(std::string_view text, std::size_t begin, std::size_t end) {
  std::size_t start = 0;
  if (begin > 0 && isWordChar(lastCodePoint(text, begin, start))) return false;
  std::size_t length = 1;
  return end >= text.size() || !isWordChar(ut::decodeAt(text, end, length));
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(std::vector<AddedToken> tokens) : m_tokens(std::move(tokens)) {
  std::erase_if(m_tokens, [](const AddedToken& t) { return t.content.empty(); });
  // Longest first: the first token that matches at a position is the longest one there.
  std::stable_sort(m_tokens.begin(), m_tokens.end(), [](const auto& a, const auto& b) {
    return a.content.size() > b.content.size();
  });
  for (const auto& t : m_tokens) m_firstByte[static_cast<unsigned char>(t.content[0])] = true;
}

void AddedTokenMatcher::split(std::string_view text, std::vector<TextSegment>& out) const {
  std::size_t done = 0;  // the end of the last match
  for (std::size_t pos = 0; pos < text.size(); ++pos) {
    if (!m_firstByte[static_cast<unsigned char>(text[pos])]) continue;
    const AddedToken* match = nullptr;
    for (const auto& t : m_tokens) {
      if (text.substr(pos, t.content.size()) == t.content) {
        match = &t;
        break;
      }
    }
    if (match == nullptr) continue;
    std::size_t begin = pos;
    std::size_t end = pos + match->content.size();
    if (match->singleWord && !standsAlone(text, begin, end)) continue;
    if (match->lstrip) begin = whitespaceBefore(text, begin, done);
    if (match->rstrip) end = whitespaceAfter(text, end);
    if (begin > done) out.push_back({done, begin, -1});
    out.push_back({begin, end, match->id});
    done = end;
    pos = end - 1;
  }
  if (done < text.size()) out.push_back({done, text.size(), -1});
}

}  // namespace attnlab::core
