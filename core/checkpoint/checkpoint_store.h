#pragma once

// Checkpoints as HDF5 files (layout in docs/run-log.md, "Checkpoint files"): one dataset per
// tensor named by its key, the step, validation loss, configuration, string attributes and
// RNG states. No pickled or executable formats.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::core {

/// The checkpoint layout version this code writes and the newest it reads.
inline constexpr std::int64_t kCheckpointFormatVersion = 1;

/// What a checkpoint carries besides tensors.
struct CheckpointMetadata {
  std::string configToml;                                  ///< the resolved config (TOML)
  std::map<std::string, std::string> attributes;           ///< free-form string attributes
  std::map<std::string, std::vector<std::uint8_t>> blobs;  ///< e.g. RNG states, by name
};

/// A loaded checkpoint.
struct CheckpointData {
  std::filesystem::path path;
  std::int64_t step = 0;
  std::optional<double> valLoss;
  std::int64_t formatVersion = 0;
  std::string createdUtc;
  std::map<std::string, at::Tensor> tensors;  ///< CPU tensors, dtype and shape as saved
  CheckpointMetadata metadata;
};

/// A checkpoint found in the folder (read from its attributes).
struct CheckpointInfo {
  std::filesystem::path path;
  std::int64_t step = 0;
  std::optional<double> valLoss;
};

/// What a scan of the folder found.
struct CheckpointScan {
  std::vector<CheckpointInfo> checkpoints;       ///< readable ones, by step
  std::vector<std::filesystem::path> leftovers;  ///< *.tmp from interrupted saves
  std::vector<std::string> unreadable;           ///< "file: reason" for broken ones
};

/// The checkpoints of one run: <runDir>/checkpoints/step-0000500.h5, ...
///
/// save() writes "<name>.tmp" and renames it (after fsync), so a crash never leaves a
/// half-written file under a checkpoint's name; then applies retention: the newest
/// `keepLast` checkpoints (at least 1) are kept, plus, with `keepBest`, the one with the
/// lowest validation loss; the rest are deleted. Files that cannot be read and *.tmp
/// leftovers are never deleted by retention; they are reported by scan().
class CheckpointStore {
 public:
  CheckpointStore(std::filesystem::path runDir, int keepLast, bool keepBest);

  /// Writes the checkpoint of `step` and applies retention; returns its path. Tensor keys
  /// may contain dots ("encoder.layers.0.attention.query.weight") and '/' (groups:
  /// "optimizer/encoder.x/exp_avg"). CUDA tensors are copied to the CPU first. Supported
  /// dtypes: float16/32/64, bfloat16, int8/16/32/64, uint8, bool. Throws CheckpointError.
  /// `beforePublish(finalPath)`, when given, runs after the file is complete and synced
  /// and before it is renamed into place: whatever must be durable before a resume can
  /// trust this checkpoint (the run log up to its step) goes there. If it throws, the file
  /// is removed and the error passes on.
  std::filesystem::path save(
      std::int64_t step, std::optional<double> valLoss,
      const std::map<std::string, at::Tensor>& tensors, const CheckpointMetadata& metadata,
      const std::function<void(const std::filesystem::path&)>& beforePublish = {});

  /// Reads a checkpoint file. A missing, truncated, corrupt or newer-format file gives
  /// CheckpointError naming it.
  static CheckpointData load(const std::filesystem::path& path);
  /// Reads only the step and validation loss (cheap: no tensors).
  static CheckpointInfo inspect(const std::filesystem::path& path);

  /// Everything in the folder, sorted by step.
  CheckpointScan scan() const;
  /// Readable checkpoints, sorted by step.
  std::vector<CheckpointInfo> list() const;
  /// The readable checkpoint with the highest step.
  std::optional<CheckpointInfo> latest() const;
  /// The readable checkpoint with the lowest finite validation loss (the later on ties).
  std::optional<CheckpointInfo> best() const;

  /// <runDir>/checkpoints
  const std::filesystem::path& directory() const noexcept { return m_dir; }
  /// The file name a step's checkpoint gets: "step-0000500.h5".
  static std::string fileNameForStep(std::int64_t step);

 private:
  void applyRetention();

  std::filesystem::path m_dir;
  int m_keepLast;
  bool m_keepBest;
};

}  // namespace attnlab::core
