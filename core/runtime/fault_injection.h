#pragma once

// Named points where a test can kill this process with SIGKILL, to prove what a crash at
// exactly that moment leaves behind (docs/hardening.md). Set ATTNLAB_KILL_AT=<point>@<step>,
// e.g. "checkpoint-published@8"; without it a point costs one integer comparison. Not a
// configuration option: nothing a user sets reaches it.

#include <cstdint>

namespace attnlab::core {

/// The points the engine offers.
namespace fault_point {
/// The checkpoint of the step is visible under its final name (renamed), and nothing after.
inline constexpr const char* kCheckpointPublished = "checkpoint-published";
/// The run log holds everything up to the step (synced), the checkpoint is not renamed yet.
inline constexpr const char* kBeforeCheckpointPublish = "before-checkpoint-publish";
/// A new run log's layout is written under its temporary name, not yet renamed (step 0).
inline constexpr const char* kRunLogMade = "run-log-made";
}  // namespace fault_point

/// Kills the process (SIGKILL, no clean-up) when ATTNLAB_KILL_AT names `point` at `step`.
void faultPoint(const char* point, std::int64_t step);

}  // namespace attnlab::core
