#pragma once

// A text corpus of a given size for the data pipeline's end-to-end tests: sentences of 5 to
// 14 words drawn from 60 English words by a fixed generator, so every line differs, the
// file is the same on every machine, and a 50-piece tokenizer covers it (with many pieces
// per word, which keeps encoding slow enough to interrupt).

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace attnlab::tests {

/// About `bytes` bytes of sentences, one per line, from the generator seeded with `seed`.
inline std::string variedCorpusText(std::uint64_t bytes, std::uint64_t seed = 7) {
  static const char* const kWords[] = {
      "the",       "a",       "an",      "of",      "river",      "star",      "village",
      "house",     "teacher", "prince",  "girl",    "dog",        "cat",       "old",
      "young",     "bright",  "quiet",   "empty",   "watched",    "admired",   "followed",
      "painted",   "near",    "harbour", "under",   "over",       "beside",    "morning",
      "evening",   "winter",  "summer",  "green",   "silver",     "heavy",     "small",
      "ancient",   "narrow",  "wide",    "singing", "running",    "slowly",    "quickly",
      "garden",    "window",  "bridge",  "forest",  "valley",     "island",    "letter",
      "story",     "music",   "lantern", "candle",  "remembered", "mountains", "sailors",
      "whispered", "carried", "beneath", "orchard"};
  constexpr std::uint64_t kWordCount = sizeof kWords / sizeof kWords[0];
  std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  const auto next = [&state] {  // splitmix64
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  std::string text;
  text.reserve(bytes + 128);
  while (text.size() < bytes) {
    const std::uint64_t words = 5 + next() % 10;
    for (std::uint64_t w = 0; w < words; ++w) {
      text += kWords[next() % kWordCount];
      text += ' ';
    }
    text += ".\n";
  }
  return text;
}

inline void writeVariedCorpus(const std::filesystem::path& path, std::uint64_t bytes,
                              std::uint64_t seed = 7) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << variedCorpusText(bytes, seed);
}

}  // namespace attnlab::tests
