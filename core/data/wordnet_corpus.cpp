#include "core/data/wordnet_corpus.h"

#include "core/data/data_files.h"
#include "core/data/text_encoding.h"
#include "core/errors/error.h"

#include <fstream>
#include <string>

namespace attnlab::core {

namespace fs = std::filesystem;

std::vector<fs::path> wordnetDataFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const char* name : {"data.noun", "data.verb", "data.adj", "data.adv"}) {
    fs::path p = dir / name;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) {
      throw DataError(p.string(),
                      "WordNet data file not found (install Debian's wordnet-base, or set the "
                      "corpus directory to where data.noun and friends live)");
    }
    files.push_back(std::move(p));
  }
  return files;
}

WordNetCorpusStats writeWordNetGlosses(const fs::path& dir, const fs::path& out) {
  const auto files = wordnetDataFiles(dir);
  const fs::path tmp = temporaryPathFor(out);
  std::ofstream sink(tmp, std::ios::binary | std::ios::trunc);
  if (!sink) throw DataError(tmp.string(), "cannot open for writing");

  WordNetCorpusStats stats;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw DataError(file.string(), "cannot open for reading");
    std::string line;
    while (std::getline(in, line)) {
      // The licence header lines start with two spaces; synset lines with an offset.
      if (line.empty() || line[0] == ' ') continue;
      const size_t bar = line.find(" | ");
      if (bar == std::string::npos) continue;
      size_t begin = bar + 3;
      size_t end = line.find_last_not_of(" \r\n\t");
      if (end == std::string::npos || end < begin) continue;
      const std::string gloss = latin1ToUtf8(std::string_view(line).substr(begin, end - begin + 1));
      sink << gloss << '\n';
      ++stats.lines;
      bool inWord = false;
      for (const char c : gloss) {
        const bool space = (c == ' ' || c == '\t');
        if (!space && !inWord) ++stats.words;
        inWord = !space;
      }
    }
  }
  sink.close();
  if (!sink) throw DataError(tmp.string(), "write failed (disk full?)");
  replaceFile(tmp, out);
  return stats;
}

}  // namespace attnlab::core
