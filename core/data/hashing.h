#pragma once

// Small, dependency-free hashing and random numbers for the data pipeline. The data
// pipeline uses its own generators (never torch's global one) so that drawing batches can
// never disturb model initialisation or dropout, and so that a batch depends only on
// (seed, step).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace attnlab::core {

/// 64-bit FNV-1a, fed incrementally. Used for content fingerprints (corpus text,
/// tokenizer model bytes): fast enough for hundreds of MB and stable across platforms.
class Fnv1a64 {
 public:
  void update(const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) {
      m_hash ^= p[i];
      m_hash *= 0x100000001b3ULL;
    }
  }
  void update(std::string_view text) { update(text.data(), text.size()); }
  std::uint64_t value() const { return m_hash; }

 private:
  std::uint64_t m_hash = 0xcbf29ce484222325ULL;
};

/// FNV-1a of one buffer.
inline std::uint64_t fnv1a64(std::string_view text) {
  Fnv1a64 h;
  h.update(text);
  return h.value();
}

/// splitmix64's finaliser: a bijective 64-bit mixer.
inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/// Derives an independent stream key from a parent key and one more coordinate
/// (a tag, an epoch, a step, a row): mixSeed(mixSeed(seed, step), row).
inline std::uint64_t mixSeed(std::uint64_t key, std::uint64_t coordinate) {
  return mix64(key + 0x9e3779b97f4a7c15ULL * (coordinate + 1) + mix64(coordinate));
}

/// splitmix64 generator (Steele, Lea, Flood 2014): one 64-bit word of state, passes
/// BigCrush, cheap to seed per row, which keeps batches independent of thread counts.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next() {
    m_state += 0x9e3779b97f4a7c15ULL;
    return mix64(m_state);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [0, n) for n > 0, without modulo bias (rejection on the low zone).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = ~std::uint64_t(0) - (~std::uint64_t(0) % n);
    std::uint64_t x = next();
    while (x >= limit) x = next();
    return x % n;
  }

 private:
  std::uint64_t m_state;
};

/// Sixteen lower-case hex digits.
std::string toHex64(std::uint64_t value);

}  // namespace attnlab::core
