#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace attnlab::app {

/// Progress of a long analysis: one rewritten status line with a bar and ETA on a terminal;
/// on a pipe or log, a plain line when a phase starts and at every tenth of it.
class TaskProgress {
 public:
  TaskProgress(std::FILE* out, bool interactive);
  ~TaskProgress();
  TaskProgress(const TaskProgress&) = delete;
  TaskProgress& operator=(const TaskProgress&) = delete;

  void update(const std::string& phase, std::int64_t done, std::int64_t total);
  /// Ends the status line (before other output).
  void finish();

 private:
  std::FILE* m_out;
  bool m_interactive;
  bool m_lineOpen = false;
  std::string m_phase;
  int m_lastTenth = -1;
  std::chrono::steady_clock::time_point m_phaseStart;
};

}  // namespace attnlab::app
