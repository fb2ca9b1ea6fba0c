#pragma once

// The names of `attnlab-cli train --progress jsonl`: one JSON object per line, its "event"
// one of these, with the typed fields listed (docs/distributed.md, "Progress for programs").
// Every object also has "text" (the line a person would read); a launch with
// --nproc-per-node puts "rank" first. attnlab-cli writes them (progress_printer.cpp,
// distributed_launch.cpp) and the app reads them (DistributedRunLauncher): one table.

#include <string_view>

namespace attnlab::app::progress_events {

inline constexpr std::string_view kPhase = "phase";  ///< phase, done, total
/// step, total, loss, accuracy, learning_rate, grad_norm, tokens_per_second, elapsed_seconds,
/// device, device_memory_bytes
inline constexpr std::string_view kStep = "step";
inline constexpr std::string_view kEvaluation = "evaluation";  ///< step, total, loss, accuracy
inline constexpr std::string_view kCheckpoint = "checkpoint";  ///< step, path
/// kind (a run event's name, core/runlog/run_event_kind.h), step; world_size for "distributed"
inline constexpr std::string_view kMilestone = "milestone";
inline constexpr std::string_view kMessage = "message";  ///< the command's own lines
/// A line a worker printed outside the channel (its errors), wrapped by the launcher.
inline constexpr std::string_view kOutput = "output";

}  // namespace attnlab::app::progress_events
