#pragma once

// A seeded, uniform sample of a text file's lines (reservoir sampling, Vitter's algorithm R),
// streamed: what the tokenizer of a large corpus trains on (core/data/tokenizer_provider.h).

#include <cstdint>
#include <filesystem>

namespace attnlab::core {

/// Writes `count` lines of `text` drawn uniformly without replacement (all of them when the
/// file has no more), in the file's order, to `out` (atomically). Holds only the sample in
/// memory. The same file, count and seed give the same sample on every machine. Returns the
/// number of lines written. Throws DataError naming the file that cannot be read or written.
std::int64_t writeLineSample(const std::filesystem::path& text, std::int64_t count,
                             std::uint64_t seed, const std::filesystem::path& out);

}  // namespace attnlab::core
