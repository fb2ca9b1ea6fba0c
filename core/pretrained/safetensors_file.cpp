#include "core/pretrained/safetensors_file.h"

#include "core/errors/error.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

namespace attnlab::core {

namespace {

using nlohmann::json;

// Far above any real header (BERT-large's is about 30 kB), low enough that a corrupted
// length cannot ask for gigabytes before the JSON is even read.
constexpr std::uint64_t kMaxHeaderBytes = 100ull << 20;

struct DtypeName {
  const char* name;
  SafetensorsDtype dtype;
};
constexpr DtypeName kDtypes[] = {{"F32", SafetensorsDtype::F32},   {"F16", SafetensorsDtype::F16},
                                 {"BF16", SafetensorsDtype::BF16}, {"F64", SafetensorsDtype::F64},
                                 {"I64", SafetensorsDtype::I64},   {"I32", SafetensorsDtype::I32}};

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw DataError(where, what);
}

SafetensorsDtype dtypeOf(const json& value, const std::string& where, const std::string& key) {
  if (!value.is_string()) fail(where, key + ": dtype is not a string");
  const auto text = value.get<std::string>();
  for (const auto& d : kDtypes)
    if (text == d.name) return d.dtype;
  fail(where, key + ": dtype " + text + " is not read (F32, F16, BF16, F64, I64, I32 are)");
}

std::vector<std::int64_t> shapeOf(const json& value, const std::string& where,
                                  const std::string& key) {
  if (!value.is_array()) fail(where, key + ": shape is not an array");
  std::vector<std::int64_t> shape;
  for (const auto& d : value) {
    if (!d.is_number_unsigned() || d.get<std::uint64_t>() > (1ull << 40))
      fail(where, key + ": shape " + value.dump() + " holds a value that is not a size");
    shape.push_back(static_cast<std::int64_t>(d.get<std::uint64_t>()));
  }
  return shape;
}

/// Element count of `shape`, or -1 when it would overflow.
std::int64_t countOf(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (const auto d : shape) {
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

SafetensorsEntry entryOf(const std::string& name, const json& value, std::uint64_t dataSize,
                         const std::string& where) {
  const std::string key = "tensor \"" + name + "\"";
  if (!value.is_object()) fail(where, key + ": not an object");
  for (const char* field : {"dtype", "shape", "data_offsets"})
    if (!value.contains(field)) fail(where, key + ": " + field + " missing");
  SafetensorsEntry e{name, dtypeOf(value["dtype"], where, key),
                     shapeOf(value["shape"], where, key)};
  const auto& offsets = value["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned())
    fail(where, key + ": data_offsets " + offsets.dump() + " is not [begin, end]");
  e.begin = offsets[0].get<std::uint64_t>();
  e.end = offsets[1].get<std::uint64_t>();
  const std::string range = "data_offsets " + offsets.dump();
  if (e.begin > e.end) fail(where, key + ": " + range + " ends before it begins");
  if (e.end > dataSize)
    fail(where,
         key + ": " + range + " ends beyond the " + std::to_string(dataSize) + " bytes of data");
  const auto count = countOf(e.shape);
  if (count < 0 || static_cast<std::uint64_t>(count) * dtypeSize(e.dtype) != e.end - e.begin)
    fail(where, key + ": shape " + value["shape"].dump() + " of " + dtypeName(e.dtype) +
                    " needs a different size than the " + std::to_string(e.end - e.begin) +
                    " bytes of " + range);
  return e;
}

}  // namespace

std::size_t dtypeSize(SafetensorsDtype dtype) {
  switch (dtype) {
    case SafetensorsDtype::F16:
    case SafetensorsDtype::BF16:
      return 2;
    case SafetensorsDtype::F32:
    case SafetensorsDtype::I32:
      return 4;
    case SafetensorsDtype::F64:
    case SafetensorsDtype::I64:
      return 8;
  }
  return 0;  // unreachable: -Werror=switch keeps the switch complete
}

const char* dtypeName(SafetensorsDtype dtype) {
  for (const auto& d : kDtypes)
    if (d.dtype == dtype) return d.name;
  return "?";
}

std::int64_t SafetensorsEntry::elements() const {
  return countOf(shape);
}

std::vector<SafetensorsEntry> SafetensorsFile::parseHeader(
    std::string_view header, std::uint64_t dataSize, const std::string& where,
    std::map<std::string, std::string>* metadata) {
  json doc;
  try {
    doc = json::parse(header.begin(), header.end());
  } catch (const json::exception& e) {
    fail(where, std::string("the header is not JSON: ") + e.what());
  }
  if (!doc.is_object()) fail(where, "the header is not a JSON object");
  std::vector<SafetensorsEntry> entries;
  for (const auto& [name, value] : doc.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) fail(where, "__metadata__ is not an object");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) fail(where, "__metadata__ \"" + k + "\" is not a string");
        if (metadata != nullptr) (*metadata)[k] = v.get<std::string>();
      }
      continue;
    }
    entries.push_back(entryOf(name, value, dataSize, where));
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.begin < b.begin; });
  for (std::size_t i = 1; i < entries.size(); ++i)
    if (entries[i].begin < entries[i - 1].end && entries[i].begin != entries[i].end)
      fail(where, "tensor \"" + entries[i].name + "\" overlaps tensor \"" + entries[i - 1].name +
                      "\" in the data");
  return entries;
}

struct SafetensorsFile::State {
  std::filesystem::path path;
  void* map = nullptr;
  std::size_t size = 0;
  const std::byte* data = nullptr;  // the data section
  std::vector<SafetensorsEntry> entries;
  std::map<std::string, std::string> metadata;
  ~State() {
    if (map != nullptr && map != MAP_FAILED) munmap(map, size);
  }
};

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path)
    : m_state(std::make_unique<State>()) {
  auto& s = *m_state;
  s.path = path;
  const std::string where = path.string();
  const int fd = ::open(where.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(where, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < 8) {
    ::close(fd);
    fail(where, "shorter than the 8-byte header length: not a safetensors file");
  }
  s.size = static_cast<std::size_t>(st.st_size);
  s.map = ::mmap(nullptr, s.size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);  // the mapping keeps the file
  if (s.map == MAP_FAILED) fail(where, std::string("cannot map: ") + std::strerror(errno));
  const auto* bytes = static_cast<const unsigned char*>(s.map);
  std::uint64_t headerSize = 0;
  for (int i = 7; i >= 0; --i) headerSize = (headerSize << 8) | bytes[i];  // little-endian
  if (headerSize > kMaxHeaderBytes || headerSize > s.size - 8)
    fail(where, "the header length " + std::to_string(headerSize) + " points beyond the " +
                    std::to_string(s.size) + "-byte file (truncated, or not safetensors)");
  const std::string_view header(reinterpret_cast<const char*>(bytes + 8), headerSize);
  s.data = reinterpret_cast<const std::byte*>(bytes + 8 + headerSize);
  s.entries = parseHeader(header, s.size - 8 - headerSize, where, &s.metadata);
}

SafetensorsFile::~SafetensorsFile() = default;
SafetensorsFile::SafetensorsFile(SafetensorsFile&&) noexcept = default;
SafetensorsFile& SafetensorsFile::operator=(SafetensorsFile&&) noexcept = default;

const std::filesystem::path& SafetensorsFile::path() const {
  return m_state->path;
}
const std::vector<SafetensorsEntry>& SafetensorsFile::entries() const {
  return m_state->entries;
}
const std::map<std::string, std::string>& SafetensorsFile::metadata() const {
  return m_state->metadata;
}

const SafetensorsEntry* SafetensorsFile::find(const std::string& name) const {
  for (const auto& e : m_state->entries)
    if (e.name == name) return &e;
  return nullptr;
}

std::span<const std::byte> SafetensorsFile::bytes(const SafetensorsEntry& entry) const {
  return {m_state->data + entry.begin, static_cast<std::size_t>(entry.end - entry.begin)};
}

}  // namespace attnlab::core
