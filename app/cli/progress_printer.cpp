#include "app/cli/progress_printer.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace attnlab::app {
namespace {

[[gnu::format(printf, 1, 2)]] std::string format(const char* pattern, ...) {
  char buf[256];
  va_list args;
  va_start(args, pattern);
  std::vsnprintf(buf, sizeof buf, pattern, args);
  va_end(args);
  return buf;
}

}  // namespace

ProgressPrinter::ProgressPrinter(std::FILE* out, bool interactive) : m_bar(out, interactive) {}

void ProgressPrinter::onProgress(const core::TrainingProgress& p) {
  const auto step = static_cast<long long>(p.step);
  const auto total = static_cast<long long>(p.totalSteps);
  if (p.evalLoss) {
    // Evaluation reports carry only the validation figures: a line of their own.
    m_bar.message(format("step %lld/%lld validation loss %.4f accuracy %.3f", step, total,
                         *p.evalLoss, p.evalAccuracy.value_or(0.0)));
    return;
  }
  ProgressBar::Report report;
  report.label = format("step %lld/%lld", step, total);
  report.fraction = p.totalSteps > 0 ? double(p.step) / double(p.totalSteps) : 0.0;
  report.elapsedSeconds = p.elapsedSeconds;
  report.terminalDetails = format("loss %.4f | %.0f tok/s", p.loss, p.tokensPerSecond);
  report.plainDetails = format("loss %.4f acc %.3f lr %.3g grad_norm %.3f tok/s %.0f", p.loss,
                               p.accuracy, p.learningRate, p.gradNorm, p.tokensPerSecond);
  m_bar.report(report);
}

void ProgressPrinter::onMessage(const std::string& message) {
  m_bar.message(message);
}

}  // namespace attnlab::app
