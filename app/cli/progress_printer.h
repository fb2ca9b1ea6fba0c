#pragma once

#include "app/cli/progress_bar.h"
#include "core/train/training_progress.h"

#include <cstdio>
#include <string>

namespace attnlab::app {

/// How `attnlab-cli train` reports: for people (a bar on a terminal, plain lines elsewhere)
/// or for programs (`--progress jsonl`: one JSON object per line, docs/distributed.md).
enum class ProgressFormat { Human, Jsonl };

/// Training progress on the command line: a thin adapter that turns the engine's typed
/// events into ProgressBar reports (the bar with loss, tokens/s and ETA on a terminal; one
/// plain line per report otherwise). Data phases, evaluations, checkpoints and milestones
/// get lines of their own. In the JSON-lines format each of those is one object with its
/// typed fields and "text", the line a person would have read.
class ProgressPrinter : public core::TrainingObserver {
 public:
  ProgressPrinter(std::FILE* out, bool interactive, ProgressFormat format = ProgressFormat::Human);
  ~ProgressPrinter() override = default;

  void onEvent(const core::TrainingEvent& event) override;
  /// A line of the command's own (ends the status line first); {"event":"message"} in JSON.
  void message(const std::string& text);

  /// True when `out` is a terminal.
  static bool isTerminal(std::FILE* out) { return ProgressBar::isTerminal(out); }

 private:
  void onStep(const core::StepEvent& step);
  void onPhase(const core::PhaseEvent& phase);
  void onMilestone(const core::MilestoneEvent& milestone);
  /// A line of its own: `text` for people, `json` (completed with "text") for programs.
  void line(const std::string& text, class JsonLine json);

  std::FILE* m_out;
  ProgressFormat m_format;
  ProgressBar m_bar;
  std::string m_phase;         ///< the phase last reported
  double m_phaseLineAt = 0.0;  ///< its seconds at the last progress line
  bool m_phaseEnded = false;   ///< its last line (done == total) is printed
  /// Seconds between progress lines of a phase when the output is not a terminal.
  static constexpr double kPhaseLineSeconds = 5.0;
};

}  // namespace attnlab::app
