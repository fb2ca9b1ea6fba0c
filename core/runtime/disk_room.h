#pragma once

// How many bytes a file may still grow by: the free space of its file system for this
// user, and the process' file-size limit (RLIMIT_FSIZE) minus the file's size. Writers check
// it before a write that must not fail half-way (a checkpoint, a batch of log rows), so a
// full disk stops a run with a message and leaves every file whole, instead of leaving
// an HDF5 file that no reader can open.

#include <cstdint>
#include <filesystem>
#include <string>

namespace attnlab::core {

/// Bytes `file` (existing or not yet created) may grow by; UINT64_MAX when unknown.
std::uint64_t roomToGrow(const std::filesystem::path& file);

/// "12.3 MB", "512 kB", "800 B".
std::string readableBytes(std::uint64_t bytes);

}  // namespace attnlab::core
