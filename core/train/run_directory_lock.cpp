#include "core/train/run_directory_lock.h"

#include "core/errors/error.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

namespace attnlab::core {

namespace {

struct flock wholeFile(short type) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;  // to the end, however long
  return lock;
}

std::string readAll(int fd) {
  std::string text;
  char buffer[512];
  if (lseek(fd, 0, SEEK_SET) < 0) return text;
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
  return text;
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown host";
  return name;
}

}  // namespace

std::filesystem::path runDirectoryLockPath(const std::filesystem::path& runDir) {
  return runDir / ".attnlab-lock";
}

RunDirectoryLock::RunDirectoryLock(const std::filesystem::path& runDir) {
  const std::filesystem::path path = runDirectoryLockPath(runDir);
  m_fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) {
    throw ConfigError(runDir.string(), "cannot create the run directory's lock file " +
                                           path.string() + ": " + std::strerror(errno));
  }
  struct flock lock = wholeFile(F_WRLCK);
  if (fcntl(m_fd, F_OFD_SETLK, &lock) != 0) {
    const int error = errno;
    std::string holder = readAll(m_fd);
    close(m_fd);
    m_fd = -1;
    if (error == EAGAIN || error == EACCES) {
      if (holder.empty()) holder = "another process";
      throw ConfigError(runDir.string(),
                        "the run directory is being trained by " + holder +
                            "; two trainings must never write the same run directory (stop "
                            "that one first, or choose another --run-dir)");
    }
    throw ConfigError(runDir.string(),
                      std::string("cannot lock the run directory: ") + std::strerror(error));
  }
  const std::string description =
      "pid " + std::to_string(getpid()) + " on host " + hostName() + " since " + utcNow() + "\n";
  if (ftruncate(m_fd, 0) != 0 || pwrite(m_fd, description.data(), description.size(), 0) < 0) {
    // The lock holds without the description; viewers then say "another process".
  }
}

RunDirectoryLock::~RunDirectoryLock() {
  if (m_fd >= 0) close(m_fd);  // closing the description releases the lock
}

std::optional<RunDirectoryHolder> runDirectoryHolder(const std::filesystem::path& runDir) {
  const std::filesystem::path path = runDirectoryLockPath(runDir);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // F_OFD_GETLK tests without taking: asking never races with a trainer starting.
  struct flock lock = wholeFile(F_WRLCK);
  std::optional<RunDirectoryHolder> holder;
  if (fcntl(fd, F_OFD_GETLK, &lock) == 0 && lock.l_type != F_UNLCK) {
    std::string text = readAll(fd);
    holder = RunDirectoryHolder{text.empty() ? "another process" : text};
  }
  close(fd);
  return holder;
}

}  // namespace attnlab::core
