#pragma once

// What a training run reports while it runs: typed events, delivered on the engine thread
// to a TrainingObserver. The CLI prints them; the app buffers them and drains the buffer on
// its GUI thread (docs/architecture.md, "Threads").

#include "core/runlog/run_event_kind.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>

namespace attnlab::core {

/// What a phase's done and total count.
enum class PhaseUnit { None, Bytes };

/// A long phase before or around training, with its progress: "corpus", "tokenizer",
/// "token store", "model", "evaluation". `total` 0 = unknown; done == total = finished.
struct PhaseEvent {
  std::string phase;
  std::int64_t done = 0;
  std::int64_t total = 0;
  std::string detail;    ///< e.g. "117,659 lines, 1.46 M words"
  double seconds = 0.0;  ///< since the phase began (for a rate and an ETA)
  PhaseUnit unit = PhaseUnit::None;
};

/// The metrics of one logging interval. Host numbers: the engine synchronises with the
/// device once per interval only.
struct TrainingProgress {
  std::int64_t step = 0;  ///< completed optimiser steps
  std::int64_t totalSteps = 0;
  double loss = 0.0;      ///< mean training MLM loss over the interval (nats)
  double accuracy = 0.0;  ///< masked-token accuracy over the interval
  double learningRate = 0.0;
  double gradNorm = 0.0;         ///< before clipping
  double tokensPerSecond = 0.0;  ///< real (non-padding) tokens through forward+backward
  double elapsedSeconds = 0.0;   ///< since this process started training
  std::string device;            ///< where the model trains: "cpu", "cuda:0"
  /// GPU memory held by LibTorch's caching allocator on that device (reserved), 0 on the CPU.
  std::int64_t deviceMemoryBytes = 0;
};
using StepEvent = TrainingProgress;

/// An evaluation on the validation split finished.
struct EvaluationEvent {
  std::int64_t step = 0;
  std::int64_t totalSteps = 0;
  double loss = 0.0;  ///< nats
  double accuracy = 0.0;
};

/// A checkpoint became visible under its final name.
struct CheckpointEvent {
  std::int64_t step = 0;
  std::filesystem::path path;
  std::optional<double> validationLoss;
};

/// A milestone of the run's life (core/runlog/run_event_kind.h lists the kinds); the run log
/// records the same ones as events.
struct MilestoneEvent {
  std::int64_t step = 0;
  RunEventKind kind = RunEventKind::Note;
  std::string message;
  int worldSize = 0;  ///< Start, Resume, Distributed: the processes training the run (else 0)
};

using TrainingEvent =
    std::variant<PhaseEvent, StepEvent, EvaluationEvent, CheckpointEvent, MilestoneEvent>;

/// Receives events on the engine thread. Implementations must return quickly (buffer and
/// hand off; the GUI drains on its own thread).
class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  virtual void onEvent(const TrainingEvent& event) = 0;
};

}  // namespace attnlab::core
