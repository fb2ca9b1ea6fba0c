#include "app/cli/progress_printer.h"

#include "app/cli/json_line.h"
#include "app/cli/progress_events.h"

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

ProgressPrinter::ProgressPrinter(std::FILE* out, bool interactive, ProgressFormat format)
    : m_out(out), m_format(format), m_bar(out, interactive && format == ProgressFormat::Human) {}

void ProgressPrinter::line(const std::string& text, JsonLine json) {
  if (m_format == ProgressFormat::Human) {
    m_bar.message(text);
    return;
  }
  std::fputs((json.add("text", text).str() + '\n').c_str(), m_out);
  std::fflush(m_out);
}

void ProgressPrinter::onPhase(const core::PhaseEvent& ph) {
  // A line when a phase starts (the phases are few and each can take minutes); within a
  // phase that counts bytes, the bar on a terminal and a line every kPhaseLineSeconds
  // elsewhere, with the rate and the ETA.
  const bool starts = ph.phase != m_phase;
  m_phase = ph.phase;
  if (starts) {
    m_phaseLineAt = 0.0;
    m_phaseEnded = false;
    line(ph.phase + " ...", JsonLine()
                                .add("event", progress_events::kPhase)
                                .add("phase", ph.phase)
                                .add("done", ph.done)
                                .add("total", ph.total));
    return;
  }
  if (ph.unit != core::PhaseUnit::Bytes || ph.total <= 0 || m_phaseEnded) return;
  const bool last = ph.done >= ph.total;
  m_phaseEnded = last;  // the end may be reported more than once
  if (!m_bar.interactive() && !last && ph.seconds - m_phaseLineAt < kPhaseLineSeconds) return;
  m_phaseLineAt = ph.seconds;
  constexpr double kMb = 1024.0 * 1024.0;
  const double rate = ph.seconds > 0 ? double(ph.done) / kMb / ph.seconds : 0.0;
  ProgressBar::Report report;
  report.label =
      format("%s %.0f/%.0f MB", ph.phase.c_str(), double(ph.done) / kMb, double(ph.total) / kMb);
  report.fraction = double(ph.done) / double(ph.total);
  report.elapsedSeconds = ph.seconds;
  report.terminalDetails = format("%.1f MB/s", rate);
  report.plainDetails = report.terminalDetails;
  if (m_format == ProgressFormat::Human) {
    m_bar.report(report);
    if (last) m_bar.endStatusLine();
    return;
  }
  line(ProgressBar::plainLine(report), JsonLine()
                                           .add("event", progress_events::kPhase)
                                           .add("phase", ph.phase)
                                           .add("done", ph.done)
                                           .add("total", ph.total)
                                           .add("seconds", ph.seconds)
                                           .add("mb_per_s", rate));
}

void ProgressPrinter::message(const std::string& text) {
  line(text, JsonLine().add("event", progress_events::kMessage));
}

void ProgressPrinter::onStep(const core::StepEvent& p) {
  ProgressBar::Report report;
  report.label = format("step %lld/%lld", static_cast<long long>(p.step),
                        static_cast<long long>(p.totalSteps));
  report.fraction = p.totalSteps > 0 ? double(p.step) / double(p.totalSteps) : 0.0;
  report.elapsedSeconds = p.elapsedSeconds;
  report.terminalDetails = format("loss %.4f | %.0f tok/s", p.loss, p.tokensPerSecond);
  report.plainDetails = format("loss %.4f acc %.3f lr %.3g grad_norm %.3f tok/s %.0f", p.loss,
                               p.accuracy, p.learningRate, p.gradNorm, p.tokensPerSecond);
  if (m_format == ProgressFormat::Human) {
    m_bar.report(report);
    return;
  }
  line(ProgressBar::plainLine(report), JsonLine()
                                           .add("event", progress_events::kStep)
                                           .add("step", p.step)
                                           .add("total", p.totalSteps)
                                           .add("loss", p.loss)
                                           .add("accuracy", p.accuracy)
                                           .add("learning_rate", p.learningRate)
                                           .add("grad_norm", p.gradNorm)
                                           .add("tokens_per_second", p.tokensPerSecond)
                                           .add("elapsed_seconds", p.elapsedSeconds)
                                           .add("device", p.device)
                                           .add("device_memory_bytes", p.deviceMemoryBytes));
}

void ProgressPrinter::onMilestone(const core::MilestoneEvent& m) {
  using core::RunEventKind;
  JsonLine json;
  json.add("event", progress_events::kMilestone)
      .add("kind", core::runEventKindName(m.kind))
      .add("step", m.step);
  if (m.worldSize > 0) json.add("world_size", m.worldSize);
  // For people, start, resume and finished are the run log's; the command prints its own
  // summary. A program gets them all (start and resume say the log is open).
  const bool forPeople = m.kind != RunEventKind::Start && m.kind != RunEventKind::Resume &&
                         m.kind != RunEventKind::Finished;
  if (m_format == ProgressFormat::Jsonl || forPeople) line(m.message, json);
}

void ProgressPrinter::onEvent(const core::TrainingEvent& event) {
  if (const auto* p = std::get_if<core::StepEvent>(&event)) {
    onStep(*p);
  } else if (const auto* e = std::get_if<core::EvaluationEvent>(&event)) {
    line(
        format("step %lld/%lld validation loss %.4f accuracy %.3f", static_cast<long long>(e->step),
               static_cast<long long>(e->totalSteps), e->loss, e->accuracy),
        JsonLine()
            .add("event", progress_events::kEvaluation)
            .add("step", e->step)
            .add("total", e->totalSteps)
            .add("loss", e->loss)
            .add("accuracy", e->accuracy));
  } else if (const auto* c = std::get_if<core::CheckpointEvent>(&event)) {
    line("checkpoint " + c->path.string(), JsonLine()
                                               .add("event", progress_events::kCheckpoint)
                                               .add("step", c->step)
                                               .add("path", c->path.string()));
  } else if (const auto* ph = std::get_if<core::PhaseEvent>(&event)) {
    onPhase(*ph);
  } else if (const auto* m = std::get_if<core::MilestoneEvent>(&event)) {
    onMilestone(*m);
  }
}

}  // namespace attnlab::app
