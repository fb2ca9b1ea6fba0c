#pragma once

// A small, highly regular English corpus for end-to-end tests: short sentences from a
// fixed grammar (5 subjects x 5 verbs x 4 objects x 2 places), so a tiny model visibly
// learns it in a few hundred steps and a 50-piece tokenizer covers it.

#include <filesystem>
#include <fstream>
#include <string>

namespace attnlab::tests {

inline std::string regularCorpusText(int lines) {
  const char* subjects[] = {"the cat", "a dog", "the old teacher", "our prince", "a young girl"};
  const char* verbs[] = {"watched", "admired", "followed", "painted", "remembered"};
  const char* objects[] = {"the river", "a bright star", "the quiet village", "an empty house"};
  std::string text;
  for (int i = 0; i < lines; ++i) {
    text += std::string(subjects[i % 5]) + ' ' + verbs[(i / 5) % 5] + ' ' + objects[(i / 25) % 4] +
            " near the " + (i % 3 ? "harbour" : "mountains") + " .\n";
  }
  return text;
}

inline void writeRegularCorpus(const std::filesystem::path& path, int lines) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << regularCorpusText(lines);
}

}  // namespace attnlab::tests
