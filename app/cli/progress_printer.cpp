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

void ProgressPrinter::onEvent(const core::TrainingEvent& event) {
  if (const auto* p = std::get_if<core::StepEvent>(&event)) {
    ProgressBar::Report report;
    report.label = format("step %lld/%lld", static_cast<long long>(p->step),
                          static_cast<long long>(p->totalSteps));
    report.fraction = p->totalSteps > 0 ? double(p->step) / double(p->totalSteps) : 0.0;
    report.elapsedSeconds = p->elapsedSeconds;
    report.terminalDetails = format("loss %.4f | %.0f tok/s", p->loss, p->tokensPerSecond);
    report.plainDetails = format("loss %.4f acc %.3f lr %.3g grad_norm %.3f tok/s %.0f", p->loss,
                                 p->accuracy, p->learningRate, p->gradNorm, p->tokensPerSecond);
    m_bar.report(report);
  } else if (const auto* e = std::get_if<core::EvaluationEvent>(&event)) {
    m_bar.message(format("step %lld/%lld validation loss %.4f accuracy %.3f",
                         static_cast<long long>(e->step), static_cast<long long>(e->totalSteps),
                         e->loss, e->accuracy));
  } else if (const auto* c = std::get_if<core::CheckpointEvent>(&event)) {
    m_bar.message("checkpoint " + c->path.string());
  } else if (const auto* ph = std::get_if<core::PhaseEvent>(&event)) {
    // One line when a phase starts; the phases are few and each can take minutes.
    if (ph->done < ph->total) m_bar.message(ph->phase + " ...");
  } else if (const auto* m = std::get_if<core::MilestoneEvent>(&event)) {
    // start, resume and finished are for the run log; the command prints its own summary.
    if (m->kind != "start" && m->kind != "resume" && m->kind != "finished") {
      m_bar.message(m->message);
    }
  }
}

}  // namespace attnlab::app
