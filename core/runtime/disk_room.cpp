#include "core/runtime/disk_room.h"

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cstdio>
#include <limits>

namespace attnlab::core {

std::uint64_t roomToGrow(const std::filesystem::path& file) {
  std::uint64_t room = std::numeric_limits<std::uint64_t>::max();
  std::error_code ec;
  const bool exists = std::filesystem::exists(file, ec);
  const std::filesystem::path where = exists ? file : file.parent_path();
  struct statvfs fs {};
  if (!where.empty() && ::statvfs(where.c_str(), &fs) == 0)
    room = static_cast<std::uint64_t>(fs.f_bavail) * static_cast<std::uint64_t>(fs.f_frsize);
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const std::uint64_t size = exists ? std::filesystem::file_size(file, ec) : 0;
    const auto cap = static_cast<std::uint64_t>(limit.rlim_cur);
    room = std::min(room, cap > size ? cap - size : 0);
  }
  return room;
}

std::string readableBytes(std::uint64_t bytes) {
  char text[32];
  if (bytes >= 1000000)
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  else if (bytes >= 1000)
    std::snprintf(text, sizeof text, "%.0f kB", static_cast<double>(bytes) / 1e3);
  else
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  return text;
}

}  // namespace attnlab::core
