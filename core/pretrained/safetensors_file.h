#pragma once

// A Hugging Face `.safetensors` file, read by memory map (issue 29): an 8-byte little-endian
// header length N, N bytes of JSON naming each tensor's dtype, shape and byte range in the
// data that follows, and an optional "__metadata__" object of strings. Every number the
// header holds is checked against the file before anything is read through it: the header
// within the file, each range within the data, the range's size equal to the shape's element
// count times the dtype's size, no two tensors overlapping. No LibTorch here (the reader is
// fuzzed on its own); pretrained_tensors.h makes tensors of it.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace attnlab::core {

/// The dtypes AttnLab reads (safetensors' names); others are refused naming the dtype.
enum class SafetensorsDtype { F32, F16, BF16, F64, I64, I32 };

/// Bytes per element.
std::size_t dtypeSize(SafetensorsDtype dtype);
/// "F32", "BF16", ...
const char* dtypeName(SafetensorsDtype dtype);

struct SafetensorsEntry {
  std::string name;
  SafetensorsDtype dtype = SafetensorsDtype::F32;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  ///< byte range in the data section
  std::int64_t elements() const;
};

class SafetensorsFile {
 public:
  /// Maps `path` read-only and checks its header. Throws DataError(path, "<what>: <why>")
  /// naming the JSON key of what is wrong (for example "tensor \"encoder.0.w\": data_offsets
  /// [0, 4096] end beyond the 1024 bytes of data").
  explicit SafetensorsFile(const std::filesystem::path& path);
  ~SafetensorsFile();
  SafetensorsFile(SafetensorsFile&&) noexcept;
  SafetensorsFile& operator=(SafetensorsFile&&) noexcept;

  const std::filesystem::path& path() const;
  /// The tensors in the order of their data (by begin offset).
  const std::vector<SafetensorsEntry>& entries() const;
  /// The entry called `name`, or nullptr.
  const SafetensorsEntry* find(const std::string& name) const;
  /// The raw little-endian bytes of `entry` (a view into the mapping).
  std::span<const std::byte> bytes(const SafetensorsEntry& entry) const;
  /// "__metadata__" (empty when absent).
  const std::map<std::string, std::string>& metadata() const;

  /// Parses a header (the bytes after the length) against a data section of `dataSize`
  /// bytes; the constructor's checks, without a file (tests and the fuzzer). `where` names
  /// the file in errors.
  static std::vector<SafetensorsEntry> parseHeader(std::string_view header, std::uint64_t dataSize,
                                                   const std::string& where,
                                                   std::map<std::string, std::string>* metadata);

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace attnlab::core
