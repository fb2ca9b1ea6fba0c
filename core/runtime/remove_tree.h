#pragma once

// Removing a folder and everything in it without std::filesystem::remove_all: the torch wheel's
// libtorch.so (the CUDA line, LibTorch 2.x from pip) exports its own copies of several
// std::filesystem functions, and a program linked with it binds remove_all to that copy, which
// crashed (SIGSEGV) in this project's CUDA-line tests; nftw(3) has no such twin.

#include <filesystem>

namespace attnlab::core {

/// Deletes `path` (a file, or a folder with its contents; symbolic links themselves, not their
/// targets). Absent: nothing to do. False when something could not be removed.
bool removeTree(const std::filesystem::path& path);

}  // namespace attnlab::core
