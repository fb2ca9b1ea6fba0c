#pragma once

#include "app/cli/progress_bar.h"
#include "core/train/training_progress.h"

#include <cstdio>
#include <string>

namespace attnlab::app {

/// Training progress on the command line: a thin adapter that turns the engine's typed
/// events into ProgressBar reports (the bar with loss, tokens/s and ETA on a terminal; one
/// plain line per report otherwise). Data phases, evaluations, checkpoints and milestones
/// get lines of their own.
class ProgressPrinter : public core::TrainingObserver {
 public:
  explicit ProgressPrinter(std::FILE* out, bool interactive);
  ~ProgressPrinter() override = default;

  void onEvent(const core::TrainingEvent& event) override;
  /// A line of the command's own (ends the status line first).
  void message(const std::string& text) { m_bar.message(text); }

  /// True when `out` is a terminal.
  static bool isTerminal(std::FILE* out) { return ProgressBar::isTerminal(out); }

 private:
  ProgressBar m_bar;
};

}  // namespace attnlab::app
