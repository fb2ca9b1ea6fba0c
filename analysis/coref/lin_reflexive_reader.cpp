#include "analysis/coref/lin_reflexive_reader.h"

#include "analysis/coref/reflexive_generator.h"
#include "core/errors/error.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab::analysis::coref {

namespace {

/// Why a line cannot be used; thrown inside the parser and caught per line, so a bad line
/// never stops the file.
struct BadLine {
  std::string reason;
};

/// Fields between tabs, empty ones kept: the release ends lines with a (possibly empty)
/// distractor field, and a missing field must be told from an empty one.
std::vector<std::string> splitTabs(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t tab = line.find('\t', start);
    fields.push_back(
        line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

std::optional<int> parseInt(std::string_view s) {
  int value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

bool isBlank(const std::string& line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t'; });
}

std::string joined(const std::vector<int>& indices) {
  std::string text;
  for (const int i : indices) text += (text.empty() ? "" : " ") + std::to_string(i);
  return text;
}

/// The indices of one field, each an integer naming a word of the sentence.
std::vector<int> parseIndices(const std::string& field, const std::string& what, int words) {
  std::vector<int> indices;
  for (const std::string& token : splitWords(field)) {
    const auto index = parseInt(token);
    if (!index) throw BadLine{what + " index '" + token + "' is not an integer"};
    if (*index < 0 || *index >= words)
      throw BadLine{what + " index " + token + " is out of range: the sentence has " +
                    std::to_string(words) + " words (0 to " + std::to_string(words - 1) + ")"};
    indices.push_back(*index);
  }
  return indices;
}

/// Runs of consecutive positions: one noun phrase each, since the release writes all the
/// distractor phrases of a sentence into one field ("5 6 9 10").
std::vector<std::vector<int>> splitRuns(const std::vector<int>& indices) {
  std::vector<std::vector<int>> runs;
  for (const int i : indices) {
    if (runs.empty() || i != runs.back().back() + 1) runs.emplace_back();
    runs.back().push_back(i);
  }
  return runs;
}

/// A mention over a group of words: from its first to its last word, headed by the last
/// (Lin's groups are determiner + noun).
Mention groupMention(const std::vector<int>& group, int cluster) {
  const auto [first, last] = std::minmax_element(group.begin(), group.end());
  return Mention{*first, *last + 1, *last, cluster};
}

CorefExample parseLine(const std::string& line) {
  const std::vector<std::string> fields = splitTabs(line);
  if (fields.size() < 3)
    throw BadLine{"has " + std::to_string(fields.size()) +
                  " tab-separated field(s); a line needs at least 3: sentence, reflexive index, "
                  "antecedent indices"};
  CorefExample ex;
  ex.words = splitWords(fields[0]);
  if (ex.words.empty()) throw BadLine{"the sentence is empty"};
  const int words = static_cast<int>(ex.words.size());
  // Words are separated by spaces; a control character (a CR in the middle of a line, a
  // vertical tab) would make a "word" that the tokenizer splits differently from the indices.
  for (int w = 0; w < words; ++w) {
    const std::string& word = ex.words[static_cast<std::size_t>(w)];
    const auto control = std::find_if(word.begin(), word.end(),
                                      [](char c) { return static_cast<unsigned char>(c) < 0x20; });
    if (control != word.end()) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(*control));
      throw BadLine{"word " + std::to_string(w) + " holds the control character " + hex +
                    "; the sentence field is words separated by spaces"};
    }
  }

  const std::vector<int> reflexive = parseIndices(fields[1], "reflexive", words);
  if (reflexive.size() != 1)
    throw BadLine{"the reflexive field '" + fields[1] + "' must hold exactly one index"};
  const int refl = reflexive.front();

  std::vector<int> antecedent = parseIndices(fields[2], "antecedent", words);
  if (antecedent.empty()) throw BadLine{"the antecedent field is empty"};
  auto holdsReflexive = [refl](const std::vector<int>& group) {
    return std::find(group.begin(), group.end(), refl) != group.end();
  };
  if (holdsReflexive(antecedent))
    throw BadLine{"reflexive index " + std::to_string(refl) +
                  " lies inside the antecedent group (" + joined(antecedent) + ")"};

  std::vector<std::vector<int>> distractors;
  for (std::size_t f = 3; f < fields.size(); ++f) {
    for (auto& group : splitRuns(parseIndices(fields[f], "distractor", words))) {
      if (holdsReflexive(group))
        throw BadLine{"reflexive index " + std::to_string(refl) +
                      " lies inside the distractor group (" + joined(group) + ")"};
      distractors.push_back(std::move(group));
    }
  }

  // A word in two groups would be both a right and a wrong answer.
  std::vector<int> listed = antecedent;
  for (const auto& group : distractors) listed.insert(listed.end(), group.begin(), group.end());
  std::sort(listed.begin(), listed.end());
  if (const auto twice = std::adjacent_find(listed.begin(), listed.end()); twice != listed.end())
    throw BadLine{"word " + std::to_string(*twice) + " is listed twice in the index groups"};

  ex.mentions.push_back(groupMention(antecedent, 0));
  ex.mentions.push_back(Mention{refl, refl + 1, refl, 0});
  for (const auto& group : distractors) ex.mentions.push_back(groupMention(group, -1));
  // Textual order, outer span first, as the probe and the baselines expect.
  std::stable_sort(ex.mentions.begin(), ex.mentions.end(), [](const Mention& a, const Mention& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  const auto anaphor = std::find_if(
      ex.mentions.begin(), ex.mentions.end(),
      [refl](const Mention& m) { return m.begin == refl && m.end == refl + 1 && m.cluster == 0; });
  std::sort(antecedent.begin(), antecedent.end());
  ex.items.push_back(
      ProbeItem{static_cast<int>(anaphor - ex.mentions.begin()), refl, std::move(antecedent)});
  return ex;
}

std::string fileNameOf(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

CorefDataset readLinReflexives(std::istream& in, const std::string& fileName) {
  CorefDataset data;
  data.name = fileNameOf(fileName);
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (isBlank(line)) continue;
    const std::string where = fileName + ":" + std::to_string(lineNo);
    try {
      CorefExample ex = parseLine(line);
      ex.source = where;
      data.examples.push_back(std::move(ex));
    } catch (const BadLine& bad) {
      data.skipped.push_back(SkippedData{where, bad.reason});
    }
  }
  if (in.bad()) throw DataError(fileName, "could not be read past line " + std::to_string(lineNo));
  if (data.examples.empty()) {
    if (data.skipped.empty()) throw DataError(fileName, "holds no reflexive line");
    throw DataError(fileName, "holds no usable reflexive line: all " +
                                  std::to_string(data.skipped.size()) +
                                  " lines were skipped; the first, " + data.skipped.front().where +
                                  ": " + data.skipped.front().reason);
  }
  return data;
}

CorefDataset readLinReflexives(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw DataError(path, "no such file");
  if (std::filesystem::is_directory(path, ec))
    throw DataError(path, "is a folder, not a reflexive data file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, "cannot be opened");
  return readLinReflexives(in, path);
}

}  // namespace attnlab::analysis::coref
