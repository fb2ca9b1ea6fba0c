#pragma once

#include <filesystem>
#include <string>

struct attnlab_spbridge_api;

namespace attnlab::core {

/// Starts `host` (attnlab-spbridge-host) with the bridge module `bridge` and returns a
/// function table with the bridge's contract whose every call is served by that process
/// (sp_bridge/sp_host_wire.h). Calls are serialised; the host ends when this process
/// does. Returns nullptr and sets `error` when the host cannot start or cannot load the
/// bridge. Used where RTLD_DEEPBIND is unavailable: sanitizer builds, or
/// ATTNLAB_SPBRIDGE_MODE=process.
const attnlab_spbridge_api* startSentencePieceHost(const std::filesystem::path& host,
                                                   const std::filesystem::path& bridge,
                                                   std::string& error);

}  // namespace attnlab::core
