#pragma once

#include <filesystem>
#include <string>
#include <vector>

struct attnlab_spbridge_api;

namespace attnlab::core {

/// Finds and loads the isolated SentencePiece bridge (libattnlab_spbridge.so) once per
/// process, in its own symbol scope. See sp_bridge/sp_bridge_api.h for why.
class SentencePieceLibrary {
 public:
  /// The bridge's function table. Throws TokenizerError naming every path tried when
  /// the library cannot be found or loaded.
  static const attnlab_spbridge_api& api();

  /// The paths searched, in order: $ATTNLAB_SPBRIDGE (a file), then relative to the
  /// running executable (../<libdir>/attnlab/, the executable's own folder), then the
  /// install prefix.
  static std::vector<std::filesystem::path> candidatePaths();

  /// Where the bridge was loaded from (empty before the first successful api() call).
  static std::filesystem::path loadedPath();
};

}  // namespace attnlab::core
