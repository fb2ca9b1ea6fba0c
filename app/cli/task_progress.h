#pragma once

#include "app/cli/progress_bar.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace attnlab::app {

/// Progress of a long analysis, phase by phase, drawn by ProgressBar: on a terminal the
/// status line with a bar and ETA follows every update; on a pipe or log, a plain line when
/// a phase starts and at every further tenth of it.
class TaskProgress {
 public:
  TaskProgress(std::FILE* out, bool interactive);
  TaskProgress(const TaskProgress&) = delete;
  TaskProgress& operator=(const TaskProgress&) = delete;

  void update(const std::string& phase, std::int64_t done, std::int64_t total);
  /// Ends the status line (before other output).
  void finish();

 private:
  ProgressBar m_bar;
  std::string m_phase;
  int m_lastTenth = -1;
  std::chrono::steady_clock::time_point m_phaseStart;
};

}  // namespace attnlab::app
