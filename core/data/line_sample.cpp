#include "core/data/line_sample.h"

#include "core/data/data_files.h"
#include "core/data/hashing.h"
#include "core/errors/error.h"

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::core {

namespace fs = std::filesystem;

std::int64_t writeLineSample(const fs::path& text, std::int64_t count, std::uint64_t seed,
                             const fs::path& out) {
  std::ifstream in(text, std::ios::binary);
  if (!in) throw DataError(text.string(), "cannot open for reading");
  // (line index, line): the index puts the sample back in the file's order.
  std::vector<std::pair<std::int64_t, std::string>> reservoir;
  reservoir.reserve(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  SplitMix64 rng(mixSeed(seed, 0x5A3D1E5A3D1Eull));
  std::string line;
  for (std::int64_t i = 0; std::getline(in, line); ++i) {
    if (i < count) {
      reservoir.emplace_back(i, std::move(line));
      continue;
    }
    // Line i replaces a kept one with probability count / (i + 1).
    const auto j = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(i) + 1));
    if (j < count) reservoir[static_cast<std::size_t>(j)] = {i, std::move(line)};
  }
  if (in.bad()) throw DataError(text.string(), "read failed");
  std::sort(reservoir.begin(), reservoir.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  const fs::path tmp = temporaryPathFor(out);
  {
    std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
    if (!file) throw DataError(tmp.string(), "cannot open for writing");
    for (const auto& kept : reservoir) file << kept.second << '\n';
    file.close();
    if (!file) throw DataError(tmp.string(), "write failed (disk full?)");
  }
  replaceFile(tmp, out);
  return static_cast<std::int64_t>(reservoir.size());
}

}  // namespace attnlab::core
