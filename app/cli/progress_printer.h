#pragma once

#include "app/cli/progress_bar.h"
#include "core/train/training_progress.h"

#include <cstdio>
#include <string>

namespace attnlab::app {

/// Training progress on the command line: a thin adapter that turns the engine's reports
/// into ProgressBar reports (the bar with loss, tokens/s and ETA on a terminal; one plain
/// line per report otherwise). Evaluation results and messages get lines of their own.
class ProgressPrinter : public core::TrainingObserver {
 public:
  explicit ProgressPrinter(std::FILE* out, bool interactive);
  ~ProgressPrinter() override = default;

  void onProgress(const core::TrainingProgress& progress) override;
  void onMessage(const std::string& message) override;

  /// True when `out` is a terminal.
  static bool isTerminal(std::FILE* out) { return ProgressBar::isTerminal(out); }

 private:
  ProgressBar m_bar;
};

}  // namespace attnlab::app
