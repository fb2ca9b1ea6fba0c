#pragma once

// What a checkpoint holds of a run and how it goes back in: the model's parameters under
// "model/<name>", the optimiser's state under "optimizer/...", the loss scale under
// "train/loss_scale", the CPU generator's state, the resolved config. Restoring it reproduces an
// uninterrupted run bitwise on the CPU (data order and masking are functions of (seed, step)).

#include "core/config/run_config.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::core {

class AdamW;
class CheckpointStore;
class LossScaler;
struct CheckpointData;

class TrainingState {
 public:
  /// `parameters`: the model's named parameters in registration order.
  TrainingState(std::vector<std::pair<std::string, at::Tensor>> parameters, AdamW& optimizer,
                const RunConfig& config);

  /// Copies a checkpoint into the model, the optimiser and the CPU generator; returns its
  /// step. Throws CheckpointError naming the parameter and the settings that differ when
  /// the checkpoint was written by a model of another shape. `note` receives "settings
  /// changed since the checkpoint: ..." when compatible settings differ.
  std::int64_t restore(const CheckpointData& checkpoint, std::string& note);

  /// The step's loss scaler (TrainStep::lossScaler): saved with every checkpoint as
  /// "train/loss_scale" ([scale, finite steps since it changed], float64, whatever the
  /// precision, so checkpoints have one format), and given the restored checkpoint's values
  /// now if restore() found them (checkpoints written before it was saved have none).
  void attachLossScaler(LossScaler& scaler);

  /// Writes the checkpoint of `step` through `store` (temporary name, fsync, rename) and
  /// returns its final path; `beforePublish` runs just before the rename
  /// (CheckpointStore::save). `tokenizerFingerprint`: ProvidedTokenizer::fingerprint of
  /// `tokenizerModel`, recorded for requireCheckpointTokenizer.
  std::filesystem::path save(
      CheckpointStore& store, std::int64_t step, std::optional<double> validationLoss,
      const std::filesystem::path& tokenizerModel, std::uint64_t tokenizerFingerprint,
      const std::function<void(const std::filesystem::path&)>& beforePublish = {}) const;

 private:
  std::vector<std::pair<std::string, at::Tensor>> m_parameters;
  AdamW& m_optimizer;
  LossScaler* m_lossScaler = nullptr;
  at::Tensor m_restoredLossScale;  ///< from restore(), until attachLossScaler()
  RunConfig m_config;
  std::string m_configToml;
};

/// The checkpoint attribute that holds the tokenizer's fingerprint, as 16 hex digits.
inline constexpr const char* kTokenizerFingerprintAttribute = "tokenizer_fingerprint";
std::string fingerprintText(std::uint64_t fingerprint);

/// Refuses (CheckpointError naming the file and both fingerprints) a checkpoint trained with
/// another tokenizer than the one whose model has `fingerprint`: the rows of its embeddings
/// would mean other pieces. Checkpoints written before the fingerprint was recorded pass.
void requireCheckpointTokenizer(const CheckpointData& checkpoint, std::uint64_t fingerprint);

}  // namespace attnlab::core
