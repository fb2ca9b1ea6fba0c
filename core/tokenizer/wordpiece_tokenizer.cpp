#include "core/tokenizer/wordpiece_tokenizer.h"

#include "core/tokenizer/unicode_text.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace attnlab::core {

namespace {

namespace ut = unicode_text;

constexpr std::array<bool, 128> asciiTable(bool (*pred)(unsigned)) {
  std::array<bool, 128> t{};
  for (unsigned c = 0; c < 128; ++c) t[c] = pred(c);
  return t;
}
// White_Space among ASCII: TAB LF VT FF CR and the space.
constexpr auto kAsciiSpace = asciiTable([](unsigned c) { return c == ' ' || (c >= 9 && c <= 13); });
// BERT's punctuation: every ASCII symbol that is neither a letter, a digit nor a space.
constexpr auto kAsciiPunct = asciiTable([](unsigned c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
         (c >= 123 && c <= 126);
});

// The code point ranges of the `tokenizers` library's is_chinese_char (BERT's CJK blocks).
bool isChineseChar(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

// The `tokenizers` library asks its categories (other, punctuation, non-spacing mark) of the
// unicode_categories crate, whose tables are Unicode 8.0's: a code point assigned later is
// none of them there (private use always is "other"). Compared over every code point with
// the library (docs/pretrained.md), this leaves 61 of 1,112,064 normalised differently.
constexpr int kBertCategoriesUnicode = 8;

bool knownToBert(char32_t cp) {
  return ut::assignedBy(cp, kBertCategoriesUnicode);
}

bool isPrivateUse(char32_t cp) {
  return (cp >= 0xE000 && cp <= 0xF8FF) || cp >= 0xF0000;
}

bool isBertWhitespace(char32_t cp) {
  return cp == '\t' || cp == '\n' || cp == '\r' || ut::isWhiteSpace(cp);
}

bool isBertControl(char32_t cp) {
  return cp != '\t' && cp != '\n' && cp != '\r' && ut::isOtherNotUnassigned(cp) &&
         (knownToBert(cp) || isPrivateUse(cp));
}

std::size_t countCodePoints(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The `tokenizers` WordPiece decoder's clean-up of one decoded token.
void cleanUp(std::string& token) {
  static const std::pair<std::string_view, std::string_view> kRules[] = {
      {" .", "."},   {" ?", "?"},     {" !", "!"},    {" ,", ","},
      {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},  {" do not", " don't"},
      {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : kRules) {
    for (std::size_t at = token.find(from); at != std::string::npos;
         at = token.find(from, at + to.size())) {
      token.replace(at, from.size(), to);
    }
  }
}

}  // namespace

struct WordPieceTokenizer::Scratch {
  std::vector<TextSegment> raw;
  std::vector<TextSegment> normalized;
  std::string text;
  std::u32string a;
  std::u32string b;
  std::string piece;
};

WordPieceTokenizer::WordPieceTokenizer(PieceIds vocab, WordPieceOptions options,
                                       std::vector<AddedToken> added, SpecialTokenIds special,
                                       std::filesystem::path modelPath)
    : m_vocab(std::move(vocab)),
      m_options(std::move(options)),
      m_stripAccents(m_options.stripAccents.value_or(m_options.lowercase)),
      m_special(special),
      m_path(std::move(modelPath)) {
  int size = 0;
  for (const auto& [piece, id] : m_vocab) size = std::max(size, id + 1);
  for (const auto& t : added) size = std::max(size, t.id + 1);
  m_pieces.resize(static_cast<std::size_t>(size));
  m_specialId.assign(static_cast<std::size_t>(size), false);
  for (const auto& [piece, id] : m_vocab) {
    if (id >= 0) m_pieces[static_cast<std::size_t>(id)] = piece;
    m_longestPiece = std::max(m_longestPiece, piece.size());
  }
  std::vector<AddedToken> raw, normalized;
  for (auto t : added) {
    m_pieces[static_cast<std::size_t>(t.id)] = t.content;
    m_specialId[static_cast<std::size_t>(t.id)] = t.special;
    m_addedIds[t.content] = t.id;
    if (t.normalized) t.content = normalize(t.content);
    (t.normalized ? normalized : raw).push_back(std::move(t));
  }
  m_rawAdded = AddedTokenMatcher(std::move(raw));
  m_normalizedAdded = AddedTokenMatcher(std::move(normalized));
  const auto unk = m_vocab.find(m_options.unkToken);
  if (unk == m_vocab.end()) {
    throw std::invalid_argument("the unknown piece \"" + m_options.unkToken +
                                "\" is not in the vocabulary");
  }
  m_unk = unk->second;
}

std::vector<int> WordPieceTokenizer::encode(std::string_view text) const {
  std::vector<int> out;
  Scratch s;
  encodeText(text, out, s);
  return out;
}

void WordPieceTokenizer::encodeText(std::string_view text, std::vector<int>& out,
                                    Scratch& s) const {
  s.raw.clear();
  m_rawAdded.split(text, s.raw);
  for (const auto& seg : s.raw) {
    if (seg.id >= 0) {
      out.push_back(seg.id);
      continue;
    }
    normalizeInto(text.substr(seg.begin, seg.end - seg.begin), s.text, s);
    if (m_normalizedAdded.empty()) {
      encodeNormalized(s.text, out, s);
      continue;
    }
    s.normalized.clear();
    m_normalizedAdded.split(s.text, s.normalized);
    const std::string normalizedText = s.text;
    for (const auto& sub : s.normalized) {
      if (sub.id >= 0) {
        out.push_back(sub.id);
      } else {
        encodeNormalized(std::string_view(normalizedText).substr(sub.begin, sub.end - sub.begin),
                         out, s);
      }
    }
  }
}

// BertPreTokenizer (whitespace dropped, each punctuation character its own word), then the
// WordPiece model on each word.
void WordPieceTokenizer::encodeNormalized(std::string_view text, std::vector<int>& out,
                                          Scratch& s) const {
  std::size_t wordStart = std::string_view::npos;
  for (std::size_t pos = 0; pos < text.size();) {
    const auto c = static_cast<unsigned char>(text[pos]);
    std::size_t length = 1;
    bool space = false, punct = false;
    if (c < 0x80) {
      space = kAsciiSpace[c];
      punct = kAsciiPunct[c];
    } else {
      const char32_t cp = ut::decodeAt(text, pos, length);
      space = ut::isWhiteSpace(cp);
      punct = !space && ut::isPunctuation(cp) && knownToBert(cp);
    }
    if (space || punct) {
      if (wordStart != std::string_view::npos) {
        encodeWord(text.substr(wordStart, pos - wordStart), out, s.piece);
        wordStart = std::string_view::npos;
      }
      if (punct) encodeWord(text.substr(pos, length), out, s.piece);
    } else if (wordStart == std::string_view::npos) {
      wordStart = pos;
    }
    pos += length;
  }
  if (wordStart != std::string_view::npos) encodeWord(text.substr(wordStart), out, s.piece);
}

// Greedy longest-match-first; a word with a part no piece covers is one unknown piece.
void WordPieceTokenizer::encodeWord(std::string_view word, std::vector<int>& out,
                                    std::string& buf) const {
  const auto limit = static_cast<std::size_t>(m_options.maxInputCharsPerWord);
  if (word.size() > limit && countCodePoints(word) > limit) {
    out.push_back(m_unk);
    return;
  }
  const std::size_t mark = out.size();
  const std::string& prefix = m_options.continuingPrefix;
  for (std::size_t start = 0; start < word.size();) {
    const std::size_t room =
        m_longestPiece - (start > 0 ? std::min(prefix.size(), m_longestPiece) : 0);
    std::size_t end = std::min(word.size(), start + room);
    while (end < word.size() && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80) --end;
    int found = -1;
    while (end > start) {
      buf.clear();
      if (start > 0) buf += prefix;
      buf.append(word.substr(start, end - start));
      if (const auto it = m_vocab.find(std::string_view(buf)); it != m_vocab.end()) {
        found = it->second;
        break;
      }
      do {
        --end;
      } while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80);
    }
    if (found < 0) {
      out.resize(mark);
      out.push_back(m_unk);
      return;
    }
    out.push_back(found);
    start = end;
  }
}

std::string WordPieceTokenizer::normalize(std::string_view text) const {
  Scratch s;
  std::string out;
  normalizeInto(text, out, s);
  return out;
}

bool WordPieceTokenizer::normalizeAscii(std::string_view text, std::string& out) const {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  out.reserve(text.size());
  for (const char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (m_options.cleanText) {
      // NUL and the C0 controls but TAB LF CR (VT and FF are controls first), DEL: dropped.
      if ((c < 32 && c != '\t' && c != '\n' && c != '\r') || c == 127) continue;
      if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    }
    if (m_options.lowercase && c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c + 32);
    out.push_back(static_cast<char>(c));
  }
  return true;
}

void WordPieceTokenizer::normalizeInto(std::string_view text, std::string& out, Scratch& s) const {
  out.clear();
  if (normalizeAscii(text, out)) return;
  s.b.clear();
  ut::decode(text, s.b);
  s.a.clear();
  for (char32_t cp : s.b) {
    if (m_options.cleanText) {
      if (cp == 0 || cp == 0xFFFD || isBertControl(cp)) continue;
      if (isBertWhitespace(cp)) cp = ' ';
    }
    if (m_options.handleChineseChars && isChineseChar(cp)) {
      s.a += {U' ', cp, U' '};
    } else {
      s.a.push_back(cp);
    }
  }
  if (m_stripAccents) {
    s.a = ut::nfd(s.a);
    std::erase_if(s.a, [](char32_t cp) { return ut::isNonspacingMark(cp) && knownToBert(cp); });
  }
  if (m_options.lowercase) {
    s.b.clear();
    for (const char32_t cp : s.a) ut::appendLowercase(s.b, cp);
    s.a.swap(s.b);
  }
  for (const char32_t cp : s.a) ut::appendUtf8(out, cp);
}

std::string WordPieceTokenizer::decode(std::span<const int> ids) const {
  std::string out;
  bool first = true;
  for (const int id : ids) {
    if (id < 0 || id >= vocabSize() || m_specialId[static_cast<std::size_t>(id)]) continue;
    std::string token = m_pieces[static_cast<std::size_t>(id)];
    const std::string& prefix = m_options.continuingPrefix;
    if (!first) {
      if (token.starts_with(prefix)) {
        token.erase(0, prefix.size());
      } else {
        token.insert(0, " ");
      }
    }
    cleanUp(token);
    out += token;
    first = false;
  }
  return out;
}

int WordPieceTokenizer::pieceToId(std::string_view piece) const {
  if (const auto it = m_addedIds.find(piece); it != m_addedIds.end()) return it->second;
  if (const auto it = m_vocab.find(piece); it != m_vocab.end()) return it->second;
  return m_unk;
}

std::string WordPieceTokenizer::idToPiece(int id) const {
  if (id < 0 || id >= vocabSize()) return {};
  return m_pieces[static_cast<std::size_t>(id)];
}

}  // namespace attnlab::core
