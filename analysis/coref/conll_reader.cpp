#include "analysis/coref/conll_reader.h"

#include "core/errors/error.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

namespace attnlab::analysis::coref {

namespace {

bool startsWith(const std::string& s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::string_view(s).substr(0, prefix.size()) == prefix;
}

std::optional<int> parseInt(std::string_view s) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return value;
}

std::vector<std::string> splitColumns(const std::string& line) {
  std::vector<std::string> columns;
  std::istringstream in(line);
  std::string column;
  while (in >> column) columns.push_back(column);
  return columns;
}

bool isBlank(const std::string& line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

std::string normaliseWord(const std::string& word) {
  static const std::map<std::string, std::string> escapes = {
      {"-LRB-", "("}, {"-RRB-", ")"}, {"-LSB-", "["}, {"-RSB-", "]"}, {"-LCB-", "{"},
      {"-RCB-", "}"}, {"/.", "."},    {"/?", "?"},    {"/-", "-"}};
  auto it = escapes.find(word);
  return it == escapes.end() ? word : it->second;
}

/// One step of a coreference column: a cluster opened or closed at this word.
struct CorefOp {
  int cluster = 0;
  bool open = false;
  bool close = false;
};

/// Parses "-", "(12", "12)", "(12)" and '|'-joined combinations; nullopt if malformed.
std::optional<std::vector<CorefOp>> parseCorefColumn(const std::string& column) {
  std::vector<CorefOp> ops;
  if (column == "-") return ops;
  std::string_view rest(column);
  while (true) {
    const size_t bar = rest.find('|');
    std::string_view part = rest.substr(0, bar);
    CorefOp op;
    if (!part.empty() && part.front() == '(') {
      op.open = true;
      part.remove_prefix(1);
    }
    if (!part.empty() && part.back() == ')') {
      op.close = true;
      part.remove_suffix(1);
    }
    auto id = parseInt(part);
    if (!id || *id < 0 || (!op.open && !op.close)) return std::nullopt;
    op.cluster = *id;
    ops.push_back(op);
    if (bar == std::string_view::npos) break;
    rest.remove_prefix(bar + 1);
  }
  return ops;
}

struct Sentence {
  std::vector<std::string> words;
  std::vector<std::string> pos;
  std::vector<Mention> mentions;  ///< sentence-relative, head not yet set
  int firstLine = 0;
  std::optional<SkippedData> error;
  /// Open mentions per cluster: (start word, line of the opening).
  std::map<int, std::vector<std::pair<int, int>>> open;
};

/// A sentence that was read, or a gap where one was skipped (windows break at gaps).
struct PartEntry {
  std::optional<Sentence> sentence;
};

struct Part {
  std::string name;
  int beginLine = 0;
  std::vector<PartEntry> entries;
};

class ConllParser {
 public:
  ConllParser(std::string fileName, const ConllOptions& options)
      : m_file(std::move(fileName)), m_options(options) {
    m_data.name = m_file;
    const size_t slash = m_data.name.find_last_of('/');
    if (slash != std::string::npos) m_data.name = m_data.name.substr(slash + 1);
  }

  CorefDataset parse(std::istream& in) {
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
      ++lineNo;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (startsWith(line, "#begin document")) {
        endSentence();
        if (m_part)
          abandonPart("before the next '#begin document' at line " + std::to_string(lineNo));
        m_part = Part{partName(line), lineNo, {}};
      } else if (startsWith(line, "#end document")) {
        endSentence();
        if (m_part) {
          finishPart();
        } else {
          skip(lineNo, "'#end document' without an open '#begin document'");
        }
      } else if (isBlank(line)) {
        endSentence();
      } else if (line.front() == '#') {
        // Other comment lines carry nothing the probe needs.
      } else {
        wordLine(line, lineNo);
      }
    }
    endSentence();
    if (m_part) abandonPart("before the end of the file (line " + std::to_string(lineNo) + ")");
    return std::move(m_data);
  }

 private:
  std::string where(int line) const { return m_file + ":" + std::to_string(line); }
  void skip(int line, std::string reason) {
    m_data.skipped.push_back(SkippedData{where(line), std::move(reason)});
  }

  static std::string partName(const std::string& line) {
    // "#begin document (name); part 000" -> "name/000"; anything else: the rest of the line.
    std::string rest = line.substr(std::string("#begin document").size());
    const size_t open = rest.find('(');
    const size_t close = rest.find(");");
    if (open == std::string::npos || close == std::string::npos || close < open) {
      const size_t first = rest.find_first_not_of(' ');
      return first == std::string::npos ? std::string() : rest.substr(first);
    }
    std::string name = rest.substr(open + 1, close - open - 1);
    const size_t part = rest.find("part", close);
    if (part != std::string::npos) {
      std::string number = rest.substr(part + 4);
      const size_t first = number.find_first_not_of(' ');
      if (first != std::string::npos) name += "/" + number.substr(first);
    }
    return name;
  }

  void markBad(int line, std::string reason) {
    if (!m_sentence->error) m_sentence->error = SkippedData{where(line), std::move(reason)};
  }

  void wordLine(const std::string& line, int lineNo) {
    if (!m_sentence) {
      m_sentence = Sentence{};
      m_sentence->firstLine = lineNo;
      if (!m_part) markBad(lineNo, "word lines outside '#begin document' ... '#end document'");
    }
    if (m_sentence->error) return;
    Sentence& s = *m_sentence;
    const std::vector<std::string> columns = splitColumns(line);
    if (static_cast<int>(columns.size()) < m_options.minColumns) {
      markBad(lineNo, "line has " + std::to_string(columns.size()) +
                          " columns, CoNLL-2012 needs at least " +
                          std::to_string(m_options.minColumns));
      return;
    }
    const auto number = parseInt(columns[2]);
    if (!number) {
      markBad(lineNo, "word number '" + columns[2] + "' is not an integer");
      return;
    }
    const int index = static_cast<int>(s.words.size());
    if (*number != index) {
      markBad(lineNo, "word number " + std::to_string(*number) + " where " + std::to_string(index) +
                          " was expected");
      return;
    }
    const auto ops = parseCorefColumn(columns.back());
    if (!ops) {
      markBad(lineNo, "coreference column '" + columns.back() + "' cannot be parsed");
      return;
    }
    s.words.push_back(m_options.normaliseWords ? normaliseWord(columns[3]) : columns[3]);
    s.pos.push_back(columns[4]);
    for (const CorefOp& op : *ops) {
      if (op.open && op.close) {
        s.mentions.push_back(Mention{index, index + 1, index, op.cluster});
      } else if (op.open) {
        s.open[op.cluster].push_back({index, lineNo});
      } else {
        auto it = s.open.find(op.cluster);
        if (it == s.open.end() || it->second.empty()) {
          markBad(lineNo, "coreference column closes cluster " + std::to_string(op.cluster) +
                              ", which is not open");
          return;
        }
        s.mentions.push_back(Mention{it->second.back().first, index + 1, index, op.cluster});
        it->second.pop_back();
      }
    }
  }

  void endSentence() {
    if (!m_sentence) return;
    Sentence s = std::move(*m_sentence);
    m_sentence.reset();
    if (!s.error) {
      // The earliest opening still open is where the problem starts.
      int line = 0;
      int cluster = -1;
      for (const auto& [c, stack] : s.open)
        for (const auto& [word, opened] : stack)
          if (line == 0 || opened < line) line = opened, cluster = c;
      if (line != 0)
        s.error = SkippedData{where(line), "mention of cluster " + std::to_string(cluster) +
                                               " opened here is still open at the end of the "
                                               "sentence"};
    }
    if (s.error) {
      m_data.skipped.push_back(*s.error);
      if (m_part) m_part->entries.push_back(PartEntry{});
      return;
    }
    for (Mention& m : s.mentions) m.headWord = conllHeadWord(s.pos, m.begin, m.end);
    m_part->entries.push_back(PartEntry{std::move(s)});
  }

  void abandonPart(const std::string& detail) {
    int sentences = 0;
    for (const auto& e : m_part->entries) sentences += e.sentence ? 1 : 0;
    skip(m_part->beginLine, "document part '" + m_part->name + "' has no '#end document' " +
                                detail + "; its " + std::to_string(sentences) +
                                " sentences are skipped");
    m_part.reset();
  }

  void finishPart() {
    Part part = std::move(*m_part);
    m_part.reset();
    std::vector<const Sentence*> window;
    int windowWords = 0;
    for (const PartEntry& entry : part.entries) {
      if (!entry.sentence) {
        flush(window, windowWords);
        continue;
      }
      const Sentence& s = *entry.sentence;
      const int words = static_cast<int>(s.words.size());
      int n = words;
      if (m_options.wordLength) {
        n = 0;
        for (const auto& w : s.words) n += std::max(1, m_options.wordLength(w));
      }
      if (m_options.maxWords > 0 && n > m_options.maxWords) {
        flush(window, windowWords);
        skip(s.firstLine,
             "sentence of " + std::to_string(words) + " words" +
                 (m_options.wordLength ? " (" + std::to_string(n) + " pieces)" : std::string()) +
                 " is longer than the model's maximum of " + std::to_string(m_options.maxWords));
        continue;
      }
      if (m_options.maxWords > 0 && windowWords + n > m_options.maxWords)
        flush(window, windowWords);
      window.push_back(&s);
      windowWords += n;
    }
    flush(window, windowWords);
  }

  void flush(std::vector<const Sentence*>& window, int& windowWords) {
    if (window.empty()) return;
    CorefExample ex;
    ex.source = where(window.front()->firstLine);
    for (const Sentence* s : window) {
      const int offset = static_cast<int>(ex.words.size());
      ex.words.insert(ex.words.end(), s->words.begin(), s->words.end());
      ex.pos.insert(ex.pos.end(), s->pos.begin(), s->pos.end());
      for (Mention m : s->mentions) {
        m.begin += offset;
        m.end += offset;
        m.headWord += offset;
        ex.mentions.push_back(m);
      }
    }
    window.clear();
    windowWords = 0;
    std::stable_sort(ex.mentions.begin(), ex.mentions.end(),
                     [](const Mention& a, const Mention& b) {
                       return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
                     });
    for (int i = 0; i < static_cast<int>(ex.mentions.size()); ++i) {
      const Mention& m = ex.mentions[static_cast<size_t>(i)];
      std::vector<int> heads;
      for (int j = 0; j < i; ++j) {
        const Mention& a = ex.mentions[static_cast<size_t>(j)];
        if (a.cluster == m.cluster && a.headWord != m.headWord) heads.push_back(a.headWord);
      }
      std::sort(heads.begin(), heads.end());
      heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
      if (!heads.empty()) ex.items.push_back(ProbeItem{i, m.headWord, std::move(heads)});
    }
    if (ex.items.empty() && !m_options.keepExamplesWithoutItems) return;
    m_data.examples.push_back(std::move(ex));
  }

  std::string m_file;
  ConllOptions m_options;
  CorefDataset m_data;
  std::optional<Part> m_part;
  std::optional<Sentence> m_sentence;
};

bool isNounTag(const std::string& tag) {
  return startsWith(tag, "NN") || tag == "PRP";
}

bool isCutTag(const std::string& tag) {
  return tag == "IN" || tag == "TO" || tag == "WDT" || tag == "WP" || tag == "WP$" || tag == "," ||
         tag == "MD" || startsWith(tag, "VB");
}

bool isHeadTag(const std::string& tag) {
  return startsWith(tag, "NN") || tag == "PRP" || tag == "PRP$" || tag == "CD";
}

}  // namespace

int conllHeadWord(std::span<const std::string> pos, int begin, int end) {
  if (end <= begin) return begin;
  if (static_cast<int>(pos.size()) < end) return end - 1;
  int cut = end;
  bool seenNoun = false;
  for (int i = begin; i < end; ++i) {
    const std::string& tag = pos[static_cast<size_t>(i)];
    if (seenNoun && isCutTag(tag)) {
      cut = i;
      break;
    }
    if (isNounTag(tag)) seenNoun = true;
  }
  for (int i = cut - 1; i >= begin; --i)
    if (isHeadTag(pos[static_cast<size_t>(i)])) return i;
  return end - 1;
}

CorefDataset readConll2012(std::istream& in, const std::string& fileName,
                           const ConllOptions& options) {
  if (options.maxWords < 0)
    throw ConfigError("coref.maxWords",
                      "must not be negative, got " + std::to_string(options.maxWords));
  ConllParser parser(fileName, options);
  return parser.parse(in);
}

CorefDataset readConll2012(const std::string& path, const ConllOptions& options) {
  std::ifstream in(path);
  if (!in) throw DataError(path, "cannot be opened");
  return readConll2012(in, path, options);
}

}  // namespace attnlab::analysis::coref
