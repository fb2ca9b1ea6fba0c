#include "core/tokenizer/byte_level_bpe_tokenizer.h"

#include "core/tokenizer/piece_display.h"

#include "core/tokenizer/unicode_text.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace attnlab::core {

namespace {

namespace ut = unicode_text;

// GPT-2's bytes_to_unicode: the printable Latin-1 bytes stand for themselves, the other 68
// bytes for U+0100 onwards in byte order.
constexpr std::array<char32_t, 256> kByteToUnicode = [] {
  std::array<char32_t, 256> table{};
  char32_t next = 256;
  for (unsigned b = 0; b < 256; ++b) {
    const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
    table[b] = printable ? b : next++;
  }
  return table;
}();

constexpr std::size_t kUnicodeToByteSize = 324;
constexpr std::array<int, kUnicodeToByteSize> kUnicodeToByte = [] {
  std::array<int, kUnicodeToByteSize> table{};
  table.fill(-1);
  for (unsigned b = 0; b < 256; ++b) table[kByteToUnicode[b]] = static_cast<int>(b);
  return table;
}();

// The classes GPT-2's pattern tells apart: \s, \p{L}, \p{N} and the rest.
enum class CharClass : unsigned char { Space, Letter, Number, Other };

CharClass classify(char32_t cp) {
  if (cp < 0x80) {
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) return CharClass::Letter;
    if (cp >= '0' && cp <= '9') return CharClass::Number;
    if (cp == ' ' || (cp >= 9 && cp <= 13)) return CharClass::Space;
    return CharClass::Other;
  }
  if (ut::isWhiteSpace(cp)) return CharClass::Space;
  if (ut::isLetter(cp)) return CharClass::Letter;
  if (ut::isNumber(cp)) return CharClass::Number;
  return CharClass::Other;
}

struct Classified {
  char32_t cp;
  std::uint32_t offset;
  CharClass cls;
};

// 's 't 're 've 'm 'll 'd: the code points a contraction at `i` takes, or 0.
std::size_t contraction(const std::vector<Classified>& c, std::size_t i) {
  if (c[i].cp != '\'' || i + 1 >= c.size()) return 0;
  const char32_t a = c[i + 1].cp;
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 >= c.size()) return 0;
  const char32_t b = c[i + 2].cp;
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

// The end of the match of `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|
// \s+(?!\S)|\s+` that starts at `i`.
std::size_t matchEnd(const std::vector<Classified>& c, std::size_t i) {
  const std::size_t n = c.size();
  if (const std::size_t k = contraction(c, i); k > 0) return i + k;
  std::size_t k = i;
  if (c[i].cp == ' ' && i + 1 < n && c[i + 1].cls != CharClass::Space) k = i + 1;
  const CharClass cls = c[k].cls;
  if (cls != CharClass::Space) {
    std::size_t j = k + 1;
    while (j < n && c[j].cls == cls) ++j;
    return j;
  }
  std::size_t j = i + 1;
  while (j < n && c[j].cls == CharClass::Space) ++j;
  // A run followed by a non-space leaves its last space to the word after it.
  if (j < n && j - i > 1) return j - 1;
  return j;
}

}  // namespace

std::string ByteLevelBpeTokenizer::byteSymbol(unsigned char b) {
  std::string s;
  ut::appendUtf8(s, kByteToUnicode[b]);
  return s;
}

ByteLevelBpeTokenizer::ByteLevelBpeTokenizer(
    PieceIds vocab, const std::vector<std::pair<std::string, std::string>>& merges,
    ByteLevelBpeOptions options, std::vector<AddedToken> added, SpecialTokenIds special,
    std::filesystem::path modelPath)
    : m_vocab(std::move(vocab)),
      m_options(std::move(options)),
      m_special(special),
      m_path(std::move(modelPath)) {
  int size = 0;
  for (const auto& [piece, id] : m_vocab) size = std::max(size, id + 1);
  for (const auto& t : added) size = std::max(size, t.id + 1);
  m_pieces.resize(static_cast<std::size_t>(size));
  m_specialId.assign(static_cast<std::size_t>(size), false);
  m_addedId.assign(static_cast<std::size_t>(size), false);
  for (const auto& [piece, id] : m_vocab) m_pieces[static_cast<std::size_t>(id)] = piece;
  for (const auto& t : added) {
    m_pieces[static_cast<std::size_t>(t.id)] = t.content;
    m_specialId[static_cast<std::size_t>(t.id)] = t.special;
    m_addedId[static_cast<std::size_t>(t.id)] = true;
    m_addedIds[t.content] = t.id;
  }
  m_added = AddedTokenMatcher(std::move(added));
  for (unsigned b = 0; b < 256; ++b) {
    const auto it = m_vocab.find(byteSymbol(static_cast<unsigned char>(b)));
    m_byteIds[b] = it == m_vocab.end() ? -1 : it->second;
  }
  if (m_options.unkToken) {
    const auto it = m_vocab.find(*m_options.unkToken);
    if (it == m_vocab.end()) {
      throw std::invalid_argument("the unknown piece \"" + *m_options.unkToken +
                                  "\" is not in the vocabulary");
    }
    m_unk = it->second;
  }
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [left, right] = merges[rank];
    const auto a = m_vocab.find(left), b = m_vocab.find(right), ab = m_vocab.find(left + right);
    if (a == m_vocab.end() || b == m_vocab.end() || ab == m_vocab.end()) {
      throw std::invalid_argument("merge " + std::to_string(rank + 1) + " (\"" + left + "\" \"" +
                                  right + "\") names a piece the vocabulary lacks");
    }
    const auto key = (std::uint64_t(std::uint32_t(a->second)) << 32) | std::uint32_t(b->second);
    m_merges.try_emplace(key, static_cast<int>(rank), ab->second);
  }
}

std::vector<int> ByteLevelBpeTokenizer::encode(std::string_view text) const {
  std::vector<int> out;
  std::vector<TextSegment> segments;
  m_added.split(text, segments);
  for (const auto& seg : segments) {
    if (seg.id >= 0) {
      out.push_back(seg.id);
    } else {
      encodeSegment(text.substr(seg.begin, seg.end - seg.begin), out);
    }
  }
  return out;
}

// The ByteLevel pre-tokenizer: each piece of text between added tokens gets the prefix space
// (when asked for and it does not start with one), then GPT-2's pattern splits it.
void ByteLevelBpeTokenizer::encodeSegment(std::string_view text, std::vector<int>& out) const {
  std::string prefixed;
  if (m_options.addPrefixSpace && !text.starts_with(' ')) {
    prefixed.reserve(text.size() + 1);
    prefixed.append(" ").append(text);
    text = prefixed;
  }
  if (!m_options.useRegex) {
    encodeWord(text, out);
    return;
  }
  std::vector<Classified> chars;
  chars.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t length = 1;
    const char32_t cp = ut::decodeAt(text, pos, length);
    chars.push_back({cp, static_cast<std::uint32_t>(pos), classify(cp)});
    pos += length;
  }
  for (std::size_t i = 0; i < chars.size();) {
    const std::size_t j = matchEnd(chars, i);
    const std::size_t end = j < chars.size() ? chars[j].offset : text.size();
    encodeWord(text.substr(chars[i].offset, end - chars[i].offset), out);
    i = j;
  }
}

void ByteLevelBpeTokenizer::encodeWord(std::string_view word, std::vector<int>& out) const {
  {
    std::lock_guard lock(m_cacheMutex);
    if (const auto it = m_cache.find(word); it != m_cache.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<int> ids;
  mergeWord(word, ids);
  out.insert(out.end(), ids.begin(), ids.end());
  std::lock_guard lock(m_cacheMutex);
  if (m_cache.size() >= 200000) m_cache.clear();
  m_cache.emplace(std::string(word), std::move(ids));
}

// BPE: the pair of neighbours with the lowest merge rank (the leftmost among equals) merged,
// again and again, as the library's priority queue does.
void ByteLevelBpeTokenizer::mergeWord(std::string_view word, std::vector<int>& out) const {
  if (m_options.ignoreMerges) {
    std::string spelled;
    for (const char c : word)
      ut::appendUtf8(spelled, kByteToUnicode[static_cast<unsigned char>(c)]);
    if (const auto it = m_vocab.find(spelled); it != m_vocab.end()) {
      out.push_back(it->second);
      return;
    }
  }
  std::vector<int> symbols;
  symbols.reserve(word.size());
  for (const char c : word) {
    const int id = m_byteIds[static_cast<unsigned char>(c)];
    if (id >= 0) {
      symbols.push_back(id);
    } else if (m_unk >= 0) {
      symbols.push_back(m_unk);
    }
  }
  while (symbols.size() > 1) {
    int bestRank = INT_MAX, merged = -1;
    std::size_t at = 0;
    for (std::size_t k = 0; k + 1 < symbols.size(); ++k) {
      const auto key =
          (std::uint64_t(std::uint32_t(symbols[k])) << 32) | std::uint32_t(symbols[k + 1]);
      const auto it = m_merges.find(key);
      if (it != m_merges.end() && it->second.first < bestRank) {
        bestRank = it->second.first;
        merged = it->second.second;
        at = k;
      }
    }
    if (merged < 0) break;
    symbols[at] = merged;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  }
  out.insert(out.end(), symbols.begin(), symbols.end());
}

std::string ByteLevelBpeTokenizer::decode(std::span<const int> ids) const {
  std::string out;
  for (const int id : ids) {
    if (id < 0 || id >= vocabSize() || m_specialId[static_cast<std::size_t>(id)]) continue;
    const std::string& piece = m_pieces[static_cast<std::size_t>(id)];
    if (m_addedId[static_cast<std::size_t>(id)]) {
      out += piece;
      continue;
    }
    for (std::size_t pos = 0; pos < piece.size();) {
      std::size_t length = 1;
      const char32_t cp = ut::decodeAt(piece, pos, length);
      if (cp < kUnicodeToByteSize && kUnicodeToByte[cp] >= 0) {
        out.push_back(static_cast<char>(kUnicodeToByte[cp]));
      } else {
        out.append(piece, pos, length);
      }
      pos += length;
    }
  }
  return out;
}

int ByteLevelBpeTokenizer::pieceToId(std::string_view piece) const {
  if (const auto it = m_addedIds.find(piece); it != m_addedIds.end()) return it->second;
  if (const auto it = m_vocab.find(piece); it != m_vocab.end()) return it->second;
  return m_unk >= 0 ? m_unk : m_special.unk;
}

std::string ByteLevelBpeTokenizer::displayPiece(int id) const {
  if (id < 0 || id >= vocabSize()) return {};
  const auto index = static_cast<std::size_t>(id);
  if (m_specialId[index] || m_addedId[index]) return m_pieces[index];
  const int one[] = {id};
  return displayBytes(decode(one));
}

std::string ByteLevelBpeTokenizer::idToPiece(int id) const {
  if (id < 0 || id >= vocabSize()) return {};
  return m_pieces[static_cast<std::size_t>(id)];
}

}  // namespace attnlab::core
