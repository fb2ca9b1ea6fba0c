#include "core/data/data_files.h"

#include "core/data/hashing.h"
#include "core/errors/error.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <system_error>

namespace attnlab::core {

namespace fs = std::filesystem;

std::string toHex64(std::uint64_t value) {
  std::array<char, 17> buf{};
  std::snprintf(buf.data(), buf.size(), "%016llx", static_cast<unsigned long long>(value));
  return std::string(buf.data(), 16);
}

std::string readFileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path.string(), "cannot open for reading");
  std::string bytes;
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  if (size > 0) {
    bytes.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(bytes.data(), size);
  }
  if (!in) throw DataError(path.string(), "read failed");
  return bytes;
}

std::uint64_t fingerprintFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path.string(), "cannot open for reading");
  Fnv1a64 hash;
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), buf.size());
    hash.update(buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw DataError(path.string(), "read failed");
  return hash.value();
}

fs::path temporaryPathFor(const fs::path& target) {
  return fs::path(target.string() + ".tmp-" + std::to_string(::getpid()));
}

void replaceFile(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) {
    fs::remove(from, ec);
    throw DataError(to.string(), "cannot move the finished file into place: " + ec.message());
  }
}

void writeFileAtomically(const fs::path& path, std::string_view content) {
  const fs::path tmp = temporaryPathFor(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw DataError(tmp.string(), "cannot open for writing");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) throw DataError(tmp.string(), "write failed (disk full?)");
  }
  replaceFile(tmp, path);
}

}  // namespace attnlab::core
