#pragma once

#include <cstdio>
#include <string>

namespace attnlab::app {

/// Draws progress on a text stream; the one implementation of the command line's progress
/// display (training and analyses both report through it). On a terminal, a single status
/// line rewritten in place: "<label> [=========>     ] <details> | ETA mm:ss". Elsewhere (a
/// pipe, a log, CI), whole lines: "<label> <details> elapsed mm:ss eta mm:ss". Free-text
/// messages end the status line first, so they never mix with it.
///
/// Callers decide what a report says and how often to report; this class decides how it
/// looks.
class ProgressBar {
 public:
  /// One progress report.
  struct Report {
    std::string label;            ///< what and how far: "step 120/2000", "entropy 3/40"
    double fraction = 0.0;        ///< share of the work done, clamped to [0, 1]
    double elapsedSeconds = 0.0;  ///< since the work began; with `fraction`, gives the ETA
    std::string terminalDetails;  ///< after the bar on a terminal (short): "loss 6.3 | 9 tok/s"
    std::string plainDetails;     ///< in a plain line (every figure worth logging)
  };

  /// `interactive`: draw a rewritten status line (normally: `out` is a terminal).
  ProgressBar(std::FILE* out, bool interactive);
  /// Ends an open status line.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Draws a report: rewrites the status line on a terminal, prints one line otherwise.
  void report(const Report& report);
  /// Prints one line of text, after ending the status line.
  void message(const std::string& line);
  /// Ends the status line (a newline) if one is open, and flushes.
  void endStatusLine();

  bool interactive() const { return m_interactive; }
  /// True when `out` is a terminal.
  static bool isTerminal(std::FILE* out);

  /// A report as a plain line (without its newline): "<label> <details> elapsed .. eta ..".
  static std::string plainLine(const Report& report);
  /// The bar itself: `width` characters, "=====>    " for `fraction` (clamped to [0, 1]).
  static std::string bar(double fraction, int width = kBarWidth);
  /// Seconds left, extrapolating `elapsedSeconds` linearly; NaN when `fraction` is not in
  /// (0, 1] or the elapsed time is unknown.
  static double remainingSeconds(double fraction, double elapsedSeconds);

  static constexpr int kBarWidth = 24;

 private:
  std::FILE* m_out;
  bool m_interactive;
  bool m_statusLineOpen = false;
};

/// "mm:ss" or "h:mm:ss"; "--:--" for a negative or non-finite duration.
std::string formatDuration(double seconds);

}  // namespace attnlab::app
