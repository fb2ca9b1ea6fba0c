#pragma once

// Writes a Hugging Face `.safetensors` file (issue 29, the export direction of
// safetensors_file.h): an 8-byte little-endian header length N, N bytes of JSON (the
// "__metadata__" object first, then each tensor's dtype, shape and data_offsets, in the order
// of their data, padded with spaces to a multiple of 8 bytes so the data starts aligned), and
// the tensors' raw little-endian bytes. The data is ordered as the safetensors library orders
// it: by dtype size, largest first, then by name. Plain C++, no LibTorch.

#include "core/pretrained/safetensors_file.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace attnlab::core {

/// One tensor to write: its bytes are read during the write, not copied before.
struct SafetensorsTensorView {
  std::string name;
  SafetensorsDtype dtype = SafetensorsDtype::F32;
  std::vector<std::int64_t> shape;
  std::span<const std::byte> bytes;  ///< elements x dtypeSize(dtype), little-endian
};

/// The file's bytes (header and data), for tests and for writeSafetensors. Throws DataError
/// naming `where` and the tensor for a byte count that does not fit the shape, a repeated or
/// empty name, or the reserved name "__metadata__".
std::string safetensorsBytes(const std::vector<SafetensorsTensorView>& tensors,
                             const std::map<std::string, std::string>& metadata,
                             const std::string& where);

/// Writes `path` atomically (`path`.tmp, flushed, then renamed over it). Throws DataError
/// naming the file when it cannot be written.
void writeSafetensors(const std::filesystem::path& path,
                      const std::vector<SafetensorsTensorView>& tensors,
                      const std::map<std::string, std::string>& metadata = {{"format", "pt"}});

}  // namespace attnlab::core
