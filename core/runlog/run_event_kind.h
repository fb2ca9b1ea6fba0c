#pragma once

// The kinds of a run's events, as an enum with its one table of names. The run log stores
// the name (the `events` table's `kind` column, docs/run-log.md); the engine, the app and
// the command line compare the enum, never the text. Adding a kind: its value, its row in
// kRunEventKindNames (same order), the switches the compiler names, docs/run-log.md.

#include <optional>
#include <string>
#include <string_view>

namespace attnlab::core {

enum class RunEventKind {
  Setup,        ///< where and how the run trains (device, threads, precision)
  Data,         ///< what the corpus, tokenizer and token store yielded
  Note,         ///< anything else worth a line
  Start,        ///< training started (the log was just opened)
  Resume,       ///< training resumed from a checkpoint (the log was just reopened)
  Variants,     ///< the attention mechanisms in use
  Distributed,  ///< data-parallel training: its world size and transport
  Paused,       ///< held between steps
  Unpaused,     ///< goes on after a pause
  Stopped,      ///< ended early, on request (a checkpoint was written)
  Finished,     ///< reached schedule.steps
  OutOfMemory,  ///< a step ran out of device memory
  NonFinite,    ///< a step's loss or gradients were not finite
};

/// The name the run log stores: "setup", "start", "out_of_memory", ...
std::string_view runEventKindName(RunEventKind kind);
/// The kind a run log's name stands for ("stop", which logs before "stopped" used, is
/// Stopped); empty for a name this version does not know (a newer writer's).
std::optional<RunEventKind> runEventKindFromName(std::string_view name);
/// std::string of runEventKindName, for messages and the log writer.
std::string runEventKindString(RunEventKind kind);

}  // namespace attnlab::core
