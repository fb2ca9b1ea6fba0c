#include "app/cli/progress_printer.h"

#include <unistd.h>

#include <cmath>
#include <string>

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

ProgressPrinter::ProgressPrinter(std::FILE* out, bool interactive)
    : m_out(out), m_interactive(interactive) {}

ProgressPrinter::~ProgressPrinter() {
  endStatusLine();
}

bool ProgressPrinter::isTerminal(std::FILE* out) {
  return isatty(fileno(out)) == 1;
}

void ProgressPrinter::endStatusLine() {
  if (m_statusLineOpen) {
    std::fputc('\n', m_out);
    m_statusLineOpen = false;
  }
  std::fflush(m_out);
}

void ProgressPrinter::onProgress(const core::TrainingProgress& p) {
  if (p.evalLoss) {
    // Evaluation reports carry only the validation figures: a line of their own.
    endStatusLine();
    std::fprintf(m_out, "step %lld/%lld validation loss %.4f accuracy %.3f\n",
                 static_cast<long long>(p.step), static_cast<long long>(p.totalSteps), *p.evalLoss,
                 p.evalAccuracy.value_or(0.0));
    std::fflush(m_out);
    return;
  }
  const double fraction = p.totalSteps > 0 ? double(p.step) / double(p.totalSteps) : 0.0;
  const double eta = fraction > 0 ? p.elapsedSeconds * (1.0 - fraction) / fraction : NAN;
  if (m_interactive) {
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(std::round(fraction * kWidth));
    std::string bar(static_cast<size_t>(filled), '=');
    if (filled < kWidth) bar += '>' + std::string(static_cast<size_t>(kWidth - filled - 1), ' ');
    std::fprintf(m_out, "\r\033[Kstep %lld/%lld [%s] loss %.4f | %.0f tok/s | ETA %s",
                 static_cast<long long>(p.step), static_cast<long long>(p.totalSteps), bar.c_str(),
                 p.loss, p.tokensPerSecond, formatDuration(eta).c_str());
    m_statusLineOpen = true;
  } else {
    std::fprintf(m_out,
                 "step %lld/%lld loss %.4f acc %.3f lr %.3g grad_norm %.3f tok/s %.0f "
                 "elapsed %s eta %s\n",
                 static_cast<long long>(p.step), static_cast<long long>(p.totalSteps), p.loss,
                 p.accuracy, p.learningRate, p.gradNorm, p.tokensPerSecond,
                 formatDuration(p.elapsedSeconds).c_str(), formatDuration(eta).c_str());
  }
  std::fflush(m_out);
}

void ProgressPrinter::onMessage(const std::string& message) {
  endStatusLine();
  std::fprintf(m_out, "%s\n", message.c_str());
  std::fflush(m_out);
}

}  // namespace attnlab::app
