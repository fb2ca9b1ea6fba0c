#pragma once

// Where the running program lives. Files that ship with AttnLab (the SentencePiece bridge,
// the preset configs) are found relative to it, so a build folder and any install prefix
// work alike without compiled-in absolute paths.

#include <filesystem>

namespace attnlab::core {

/// The folder holding the running executable (read from /proc/self/exe), or an empty path
/// when it cannot be read.
std::filesystem::path executableDirectory();

}  // namespace attnlab::core
