#pragma once

// How a caller steers a long analysis from another thread: a progress callback and a cancel
// flag. Kept free of LibTorch and Qt so the app's controllers can include it.

#include "core/errors/error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace attnlab::analysis {

/// Progress: the phase, done and total (in the phase's own unit). Called on the analysis
/// thread, so it must return quickly (the app queues it to the GUI thread). Within one phase
/// `done` never decreases and the phase's last report has done == total.
using AnalysisProgress =
    std::function<void(const std::string& phase, std::int64_t done, std::int64_t total)>;

/// The phases analyzeRun reports, in order (a caller can match on them). Over checkpoints
/// adds "checkpoint <step>" phases (sequences of the evaluation set under that checkpoint).
inline constexpr const char* kPhaseLoadCheckpoint = "loading checkpoint";  ///< 0..1
/// Validation split: the data pipeline's 4 phases (corpus, tokenizer, token store, batches);
/// a text file: bytes read.
inline constexpr const char* kPhaseBuildEvaluationSet = "building evaluation set";
inline constexpr const char* kPhaseEvaluationSet = "evaluation set";  ///< sequences analysed
inline constexpr const char* kPhaseSnapshots = "snapshots";           ///< log snapshot rows

/// Cancellation: the caller owns an std::atomic<bool> and sets it from any thread (a plain
/// atomic store, so a signal handler may set it too); the analysis polls it between units
/// of work and throws attnlab::Cancelled. A null flag never cancels.
inline bool cancelRequested(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

/// Throws attnlab::Cancelled("analysis (<where>)", ...) when `cancel` is set. `where` names
/// what was about to be done, so a message says how far the analysis got.
inline void throwIfCancelled(const std::atomic<bool>* cancel, const std::string& where) {
  if (cancelRequested(cancel)) {
    throw Cancelled("analysis (" + where + ")", "cancelled on request");
  }
}

}  // namespace attnlab::analysis
