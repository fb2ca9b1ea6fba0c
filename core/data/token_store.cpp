#include "core/data/token_store.h"

#include "core/data/data_files.h"
#include "core/errors/error.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>

namespace attnlab::core {

namespace fs = std::filesystem;

static_assert(std::endian::native == std::endian::little,
              "the token store format is little-endian; add byte swapping for this platform");

namespace {

constexpr char kMagic[8] = {'A', 'T', 'L', 'T', 'O', 'K', 'S', '\0'};

void removeQuietly(const fs::path& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

TokenStoreHeader headerFor(std::span<const std::int32_t> ids,
                           std::span<const std::uint64_t> lengths, int vocabSize,
                           std::uint64_t corpusFingerprint, std::uint64_t tokenizerFingerprint) {
  TokenStoreHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kTokenStoreVersion;
  h.idWidth = vocabSize <= 65535 ? 2 : 4;
  h.corpusFingerprint = corpusFingerprint;
  h.tokenizerFingerprint = tokenizerFingerprint;
  h.vocabSize = static_cast<std::uint32_t>(vocabSize);
  h.lineCount = lengths.size();
  h.tokenCount = ids.size();
  const bool noEmpty =
      std::none_of(lengths.begin(), lengths.end(), [](std::uint64_t n) { return n == 0; });
  h.flags = noEmpty ? kTokenStoreNoEmptyLines : 0;
  return h;
}

/// The largest of `count` ids of `width` bytes at `ids` (0 when there are none).
std::uint32_t largestId(const unsigned char* ids, std::uint32_t width, std::uint64_t count) {
  std::uint32_t maxId = 0;
  if (width == 2) {
    const auto* p = reinterpret_cast<const std::uint16_t*>(ids);
    for (std::uint64_t i = 0; i < count; ++i) maxId = std::max<std::uint32_t>(maxId, p[i]);
  } else {
    const auto* p = reinterpret_cast<const std::uint32_t*>(ids);
    for (std::uint64_t i = 0; i < count; ++i) maxId = std::max(maxId, p[i]);
  }
  return maxId;
}

}  // namespace

struct TokenStore::Mapping {
  void* address = nullptr;
  std::size_t size = 0;
  Mapping(void* a, std::size_t s) : address(a), size(s) {}
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (address != nullptr) ::munmap(address, size);
  }
};

void TokenStore::write(const fs::path& path, const std::vector<std::vector<std::int32_t>>& lines,
                       int vocabSize, std::uint64_t corpusFingerprint,
                       std::uint64_t tokenizerFingerprint) {
  std::vector<std::int32_t> ids;
  std::vector<std::uint64_t> lengths;
  for (const auto& l : lines) {
    ids.insert(ids.end(), l.begin(), l.end());
    lengths.push_back(l.size());
  }
  writeFlat(path, ids, lengths, vocabSize, corpusFingerprint, tokenizerFingerprint);
}

void TokenStore::writeFlat(const fs::path& path, std::span<const std::int32_t> ids,
                           std::span<const std::uint64_t> lengths, int vocabSize,
                           std::uint64_t corpusFingerprint, std::uint64_t tokenizerFingerprint) {
  if (vocabSize <= 0) throw DataError(path.string(), "vocabulary size must be positive");
  for (const std::int32_t id : ids) {
    if (id < 0 || id >= vocabSize) {
      throw DataError(path.string(), "token id " + std::to_string(id) +
                                         " is outside the vocabulary [0, " +
                                         std::to_string(vocabSize) + ")");
    }
  }
  const TokenStoreHeader h =
      headerFor(ids, lengths, vocabSize, corpusFingerprint, tokenizerFingerprint);
  std::vector<std::uint64_t> offsets;
  offsets.reserve(lengths.size() + 1);
  std::uint64_t at = 0;
  for (const std::uint64_t len : lengths) {
    offsets.push_back(at);
    at += len;
  }
  offsets.push_back(at);
  if (at != ids.size()) throw DataError(path.string(), "line lengths do not add up to the ids");

  const fs::path tmp = temporaryPathFor(path);
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) throw DataError(tmp.string(), "cannot open for writing");
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  out.write(reinterpret_cast<const char*>(offsets.data()),
            static_cast<std::streamsize>(offsets.size() * sizeof(std::uint64_t)));
  if (h.idWidth == 2) {
    const std::vector<std::uint16_t> narrow(ids.begin(), ids.end());
    out.write(reinterpret_cast<const char*>(narrow.data()),
              static_cast<std::streamsize>(narrow.size() * 2));
  } else {
    out.write(reinterpret_cast<const char*>(ids.data()),
              static_cast<std::streamsize>(ids.size() * 4));
  }
  out.close();
  if (!out) {
    removeQuietly(tmp);
    throw DataError(tmp.string(), "write failed (disk full?)");
  }
  replaceFile(tmp, path);
}

std::optional<TokenStore> TokenStore::tryOpen(const fs::path& path, std::uint64_t corpusFingerprint,
                                              std::uint64_t tokenizerFingerprint,
                                              std::string* whyNot) {
  auto fail = [&](std::string reason) -> std::optional<TokenStore> {
    if (whyNot != nullptr) *whyNot = std::move(reason);
    return std::nullopt;
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail("no store yet");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return fail("cannot stat the store");
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < sizeof(TokenStoreHeader)) {
    ::close(fd);
    return fail("truncated store (" + std::to_string(size) + " bytes, the header alone is 64)");
  }
  void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);  // the mapping keeps the file alive
  if (address == MAP_FAILED) return fail("cannot map the store into memory");
  auto map = std::make_shared<const Mapping>(address, size);

  const auto* base = static_cast<const unsigned char*>(address);
  const auto* h = reinterpret_cast<const TokenStoreHeader*>(base);
  if (std::memcmp(h->magic, kMagic, sizeof kMagic) != 0) return fail("not a token store");
  if (h->version != kTokenStoreVersion) {
    return fail("store format version " + std::to_string(h->version) + ", this build writes " +
                std::to_string(kTokenStoreVersion));
  }
  if (h->idWidth != 2 && h->idWidth != 4) return fail("corrupt header (id width)");
  // vocabSize() is an int (as every vocabulary size in the engine): a larger value is a
  // damaged header, and would read as a negative size.
  if (h->vocabSize > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max())) {
    return fail("corrupt header (vocabulary size " + std::to_string(h->vocabSize) + ")");
  }
  if (h->corpusFingerprint != corpusFingerprint) return fail("corpus changed");
  if (h->tokenizerFingerprint != tokenizerFingerprint) return fail("tokenizer changed");
  // Sizes are checked before any table is touched, with divisions so that a corrupt count
  // cannot overflow the arithmetic.
  const std::uint64_t body = size - sizeof(TokenStoreHeader);
  if (h->lineCount >= body / 8 || h->tokenCount > (body - 8 * (h->lineCount + 1)) / h->idWidth ||
      body != 8 * (h->lineCount + 1) + h->idWidth * h->tokenCount) {
    return fail("truncated or corrupt store (" + std::to_string(size) +
                " bytes do not match the header's counts)");
  }
  const auto* offsets = reinterpret_cast<const std::uint64_t*>(base + sizeof(TokenStoreHeader));
  if (offsets[0] != 0 || offsets[h->lineCount] != h->tokenCount) {
    return fail("corrupt line offset table");
  }
  for (std::uint64_t i = 0; i < h->lineCount; ++i) {
    if (offsets[i + 1] < offsets[i]) return fail("corrupt line offset table");
  }
  const unsigned char* ids = base + sizeof(TokenStoreHeader) + 8 * (h->lineCount + 1);
  // A wrong id would index past the embedding table later; one pass now is cheap.
  const std::uint32_t maxId = largestId(ids, h->idWidth, h->tokenCount);
  if (h->tokenCount > 0 && maxId >= h->vocabSize) return fail("corrupt ids (beyond vocabulary)");
  // The check read every page; let them go from this process's resident set (they stay in
  // the page cache), so opening a large store does not count its whole size as memory.
  ::madvise(address, size, MADV_DONTNEED);
  // Blocks are read in shuffled order: no read-ahead. (Page faults may still map the cached
  // pages around them, 64 KB of fault-around, so training counts the clean file pages it
  // has touched as resident: reclaimable page cache, about 0.8 GB after 20 steps on a 4 GB
  // corpus's 1.9 GB store; docs/data.md, Memory.)
  ::madvise(address, size, MADV_RANDOM);

  TokenStore store;
  store.m_map = std::move(map);
  store.m_path = path;
  store.m_header = h;
  store.m_offsets = offsets;
  store.m_ids16 = reinterpret_cast<const std::uint16_t*>(ids);
  store.m_ids32 = reinterpret_cast<const std::uint32_t*>(ids);
  return store;
}

void TokenStore::copyIds(std::int64_t begin, std::span<std::int64_t> out) const {
  if (m_header->idWidth == 2) {
    const std::uint16_t* p = m_ids16 + begin;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    const std::uint32_t* p = m_ids32 + begin;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  }
}

std::vector<int> TokenStore::line(std::int64_t line) const {
  std::vector<int> ids(static_cast<std::size_t>(lineLength(line)));
  const std::int64_t begin = lineBegin(line);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = id(begin + static_cast<std::int64_t>(i));
  return ids;
}

}  // namespace attnlab::core
