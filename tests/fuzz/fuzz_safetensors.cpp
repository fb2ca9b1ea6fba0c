// Hugging Face safetensors files (core/pretrained/safetensors_file.h): whatever the bytes, the
// reader gives an accepted file or a DataError with a place and a reason. An accepted file's
// every tensor lies inside the mapping, holds exactly its shape's element count times its
// dtype's size, and can be read to its last byte.

#include "core/errors/error.h"
#include "core/pretrained/safetensors_file.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const auto path = fuzz::writeScratchFile("model.safetensors", data, size);
  try {
    const core::SafetensorsFile file(path);
    std::uint64_t sum = 0;
    for (const auto& e : file.entries()) {
      const auto bytes = file.bytes(e);
      const auto count = e.elements();
      if (count < 0 || bytes.size() != static_cast<std::uint64_t>(count) * core::dtypeSize(e.dtype))
        fuzz::reportFinding("tensor \"" + e.name + "\" holds another size than its shape says");
      for (const std::byte b : bytes) sum += static_cast<std::uint8_t>(b);  // every byte read
      if (file.find(e.name) == nullptr) fuzz::reportFinding("an entry find() does not find");
    }
    (void)sum;
  } catch (const DataError& e) {
    fuzz::checkClearError(e);
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
  return 0;
}
