#pragma once

#include "core/config/run_config.h"
#include "core/train/training_control.h"
#include "core/train/training_progress.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

namespace attnlab::core {

class DistributedContext;

/// How a run ended.
struct TrainingSummary {
  std::int64_t startStep = 0;  ///< 0, or the checkpoint step it resumed from
  std::int64_t finalStep = 0;  ///< completed optimiser steps
  bool stopped = false;        ///< ended early by a stop request
  std::optional<double> lastEvalLoss;
  std::filesystem::path lastCheckpoint;
  std::filesystem::path runLog;
};

/// Runs MLM pretraining for one run directory:
///   <runDir>/run.h5                the live run log (SWMR)
///   <runDir>/config.toml           the resolved configuration
///   <runDir>/tokenizer.model       the SentencePiece model (trained or copied)
///   <runDir>/checkpoints/*.h5      checkpoints (last K and best)
///   <runDir>/cache/                corpus text and token store
/// A directory that holds a checkpoint resumes from the latest one; a run stopped at step
/// k and resumed ends bitwise identical to an uninterrupted run on the CPU (data order and
/// masking are functions of (seed, step); model, optimiser and RNG state are restored).
///
/// The loop (trainer.cpp) reads like the algorithm: resume, declare the run log, then per
/// step the fenced TrainStep and, outside it, the bookkeeping (IntervalMetrics, snapshots,
/// evaluation, checkpoints) and the control requests. All LibTorch objects live on the
/// thread that calls run().
class Trainer {
 public:
  /// `distributed` (optional): this process is one rank of a data-parallel run. Every rank
  /// trains its share of each step's micro-batches (core/train/train_step.h); rank 0 alone
  /// takes the run-directory lock, prepares the data first (the others wait, then reuse it),
  /// writes the run log and the checkpoints, and evaluates. The ranks agree on stop requests
  /// every step and resume from the same checkpoint; the configuration must be identical on
  /// every rank (a hash is compared at start).
  Trainer(RunConfig config, std::filesystem::path runDir, TrainingObserver* observer = nullptr,
          DistributedContext* distributed = nullptr);
  ~Trainer();

  /// Trains until schedule.steps or until `control` asks to stop (polled between steps,
  /// between evaluation batches and between data-preparation phases: the current step
  /// finishes, a checkpoint is written and the log is closed). Pause holds between steps;
  /// a checkpoint request writes one after the current step. Throws ConfigError,
  /// DataError, TokenizerError, CheckpointError, RunLogError, or TrainingError (a
  /// non-finite loss or gradient: the step and quantity are named, the last good
  /// checkpoint stays).
  TrainingSummary run(TrainingControl& control);
  /// The same with only a stop flag (the CLI's Ctrl-C).
  TrainingSummary run(const std::atomic<bool>& stop);

 private:
  RunConfig m_config;
  std::filesystem::path m_runDir;
  TrainingObserver* m_observer;
  DistributedContext* m_distributed;
};

/// The run log of a run directory.
std::filesystem::path runLogPath(const std::filesystem::path& runDir);

}  // namespace attnlab::core
