#pragma once

// Two processes must never train the same run directory: their checkpoints and run-log
// rows would interleave. A training run holds an open-file-description lock (Linux OFD
// lock) on <runDir>/.attnlab-lock for its whole life; the file names the holder. The kernel
// drops the lock when the process dies, even by kill -9, so a crash never leaves a stale
// lock behind. Viewers ask who holds it (lockHolder) without taking it, so looking at a
// run can never make its trainer fail to start.

#include <filesystem>
#include <optional>
#include <string>

namespace attnlab::core {

/// Who holds a run directory's lock: "pid 1234 on host h since 2026-11-23T12:00:00Z".
struct RunDirectoryHolder {
  std::string description;
};

class RunDirectoryLock {
 public:
  /// Takes the lock of `runDir` (which must exist) or throws ConfigError naming the
  /// directory and the holder.
  explicit RunDirectoryLock(const std::filesystem::path& runDir);
  ~RunDirectoryLock();
  RunDirectoryLock(const RunDirectoryLock&) = delete;
  RunDirectoryLock& operator=(const RunDirectoryLock&) = delete;

 private:
  int m_fd = -1;
};

/// The holder of `runDir`'s lock now, or nothing when no process trains it (also when the
/// directory or the lock file does not exist).
std::optional<RunDirectoryHolder> runDirectoryHolder(const std::filesystem::path& runDir);

/// The lock file of a run directory.
std::filesystem::path runDirectoryLockPath(const std::filesystem::path& runDir);

}  // namespace attnlab::core
