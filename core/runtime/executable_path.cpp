#include "core/runtime/executable_path.h"

#include <system_error>

namespace attnlab::core {

std::filesystem::path executableDirectory() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

}  // namespace attnlab::core
