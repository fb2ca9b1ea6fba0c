#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace attnlab::core {

/// Where Debian's wordnet-base installs its data files.
inline constexpr const char* kDefaultWordNetDir = "/usr/share/wordnet";

struct WordNetCorpusStats {
  std::uint64_t lines = 0;  ///< glosses written, one per line
  std::uint64_t words = 0;  ///< whitespace-separated words in them
};

/// The four data files (data.noun, data.verb, data.adj, data.adv) under `dir`.
/// Throws DataError naming the missing file and the package that provides it.
std::vector<std::filesystem::path> wordnetDataFiles(const std::filesystem::path& dir);

/// Extracts the gloss text (after '|') of every synset line, converts it from Latin-1 to
/// UTF-8 and writes one gloss per line to `out`, replacing it atomically. A real English
/// corpus available offline: about 117,659 glosses, 1.46 million words.
WordNetCorpusStats writeWordNetGlosses(const std::filesystem::path& dir,
                                       const std::filesystem::path& out);

}  // namespace attnlab::core
