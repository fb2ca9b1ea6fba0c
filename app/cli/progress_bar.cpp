#include "app/cli/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace attnlab::app {

std::string formatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%02ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

ProgressBar::ProgressBar(std::FILE* out, bool interactive)
    : m_out(out), m_interactive(interactive) {}

ProgressBar::~ProgressBar() {
  endStatusLine();
}

bool ProgressBar::isTerminal(std::FILE* out) {
  return isatty(fileno(out)) == 1;
}

std::string ProgressBar::bar(double fraction, int width) {
  if (width <= 0) return {};
  if (!std::isfinite(fraction)) fraction = 0.0;
  fraction = std::clamp(fraction, 0.0, 1.0);
  const int filled = static_cast<int>(std::lround(fraction * width));
  std::string text(static_cast<size_t>(filled), '=');
  if (filled < width) text += '>' + std::string(static_cast<size_t>(width - filled - 1), ' ');
  return text;
}

double ProgressBar::remainingSeconds(double fraction, double elapsedSeconds) {
  if (!(fraction > 0.0 && fraction <= 1.0) || !std::isfinite(elapsedSeconds) ||
      elapsedSeconds < 0.0) {
    return NAN;
  }
  return elapsedSeconds * (1.0 - fraction) / fraction;
}

void ProgressBar::report(const Report& r) {
  const std::string eta = formatDuration(remainingSeconds(r.fraction, r.elapsedSeconds));
  if (m_interactive) {
    // \r returns to the start of the line, \033[K clears what a longer previous line left.
    std::string line = "\r\033[K" + r.label + " [" + bar(r.fraction) + "] ";
    if (!r.terminalDetails.empty()) line += r.terminalDetails + " | ";
    line += "ETA " + eta;
    std::fputs(line.c_str(), m_out);
    m_statusLineOpen = true;
  } else {
    std::fputs((plainLine(r) + '\n').c_str(), m_out);
  }
  std::fflush(m_out);
}

std::string ProgressBar::plainLine(const Report& r) {
  std::string line = r.label;
  if (!r.plainDetails.empty()) line += ' ' + r.plainDetails;
  return line + " elapsed " + formatDuration(r.elapsedSeconds) + " eta " +
         formatDuration(remainingSeconds(r.fraction, r.elapsedSeconds));
}

void ProgressBar::message(const std::string& line) {
  endStatusLine();
  std::fputs(line.c_str(), m_out);
  std::fputc('\n', m_out);
  std::fflush(m_out);
}

void ProgressBar::endStatusLine() {
  if (m_statusLineOpen) {
    std::fputc('\n', m_out);
    m_statusLineOpen = false;
  }
  std::fflush(m_out);
}

}  // namespace attnlab::app
