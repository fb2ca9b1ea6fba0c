#include "app/cli/task_progress.h"

namespace attnlab::app {

TaskProgress::TaskProgress(std::FILE* out, bool interactive) : m_bar(out, interactive) {}

void TaskProgress::finish() {
  m_bar.endStatusLine();
}

void TaskProgress::update(const std::string& phase, std::int64_t done, std::int64_t total) {
  const auto now = std::chrono::steady_clock::now();
  if (phase != m_phase) {
    m_bar.endStatusLine();
    m_phase = phase;
    m_lastTenth = -1;
    m_phaseStart = now;
  }
  const double fraction = total > 0 ? double(done) / double(total) : 1.0;
  if (!m_bar.interactive()) {
    // A log gets a line per tenth of a phase, not one per update.
    const int tenth = static_cast<int>(fraction * 10);
    if (tenth == m_lastTenth) return;
    m_lastTenth = tenth;
  }
  ProgressBar::Report report;
  report.label = phase + ' ' + std::to_string(done) + '/' + std::to_string(total);
  report.fraction = fraction;
  report.elapsedSeconds = std::chrono::duration<double>(now - m_phaseStart).count();
  m_bar.report(report);
}

}  // namespace attnlab::app
