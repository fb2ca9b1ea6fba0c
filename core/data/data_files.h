#pragma once

// File helpers shared by the data pipeline: whole-file reads, fingerprints and atomic
// replacement (write a temporary beside the target, then rename), so an interrupted run
// never leaves a half-written corpus, store or sidecar under the final name.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace attnlab::core {

/// The whole file as bytes. Throws DataError naming the path when it cannot be read.
std::string readFileBytes(const std::filesystem::path& path);

/// FNV-1a of the file's bytes, streamed. Throws DataError naming the path.
std::uint64_t fingerprintFile(const std::filesystem::path& path);

/// A temporary name beside `target` (same folder, so the final rename is atomic), unique
/// per process: "<target>.tmp-<pid>".
std::filesystem::path temporaryPathFor(const std::filesystem::path& target);

/// Moves `from` onto `to` atomically (rename). Throws DataError naming `to`.
void replaceFile(const std::filesystem::path& from, const std::filesystem::path& to);

/// Writes `content` to a temporary and renames it onto `path`. Throws DataError.
void writeFileAtomically(const std::filesystem::path& path, std::string_view content);

}  // namespace attnlab::core
