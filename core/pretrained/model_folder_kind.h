#pragma once

// What a folder the user named is, by its files alone: no LibTorch here, so the figures
// (which promise no LibTorch code, docs/architecture.md) can ask it too.

#include <filesystem>

namespace attnlab::core {

/// True when `path` is a folder holding config.json and neither run.h5 nor checkpoints/ (an
/// AttnLab run's): what loadHuggingFaceBert reads, which names a missing weights file.
bool isPretrainedModelFolder(const std::filesystem::path& path);

}  // namespace attnlab::core
