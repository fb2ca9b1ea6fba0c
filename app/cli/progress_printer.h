#pragma once

#include "core/train/training_progress.h"

#include <cstdio>

namespace attnlab::app {

/// Prints training progress: a single rewritten status line with a bar, loss, tokens/s
/// and ETA when the output is a terminal; one plain line per report otherwise (logs, CI).
class ProgressPrinter : public core::TrainingObserver {
 public:
  explicit ProgressPrinter(std::FILE* out, bool interactive);
  ~ProgressPrinter() override;

  void onProgress(const core::TrainingProgress& progress) override;
  void onMessage(const std::string& message) override;

  /// True when `out` is a terminal.
  static bool isTerminal(std::FILE* out);

 private:
  void endStatusLine();
  std::FILE* m_out;
  bool m_interactive;
  bool m_statusLineOpen = false;
};

/// "mm:ss" or "h:mm:ss".
std::string formatDuration(double seconds);

}  // namespace attnlab::app
