#include "app/cli/task_progress.h"

#include "app/cli/progress_printer.h"

namespace attnlab::app {

TaskProgress::TaskProgress(std::FILE* out, bool interactive)
    : m_out(out), m_interactive(interactive) {}

TaskProgress::~TaskProgress() {
  finish();
}

void TaskProgress::finish() {
  if (m_lineOpen) {
    std::fputc('\n', m_out);
    m_lineOpen = false;
  }
  std::fflush(m_out);
}

void TaskProgress::update(const std::string& phase, std::int64_t done, std::int64_t total) {
  const auto now = std::chrono::steady_clock::now();
  if (phase != m_phase) {
    finish();
    m_phase = phase;
    m_lastTenth = -1;
    m_phaseStart = now;
  }
  const double fraction = total > 0 ? double(done) / double(total) : 1.0;
  const double elapsed = std::chrono::duration<double>(now - m_phaseStart).count();
  const double eta = fraction > 0 ? elapsed * (1.0 - fraction) / fraction : -1.0;
  if (m_interactive) {
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(fraction * kWidth + 0.5);
    std::string bar(static_cast<size_t>(filled), '=');
    if (filled < kWidth) bar += '>' + std::string(static_cast<size_t>(kWidth - filled - 1), ' ');
    std::fprintf(m_out, "\r\033[K%s %lld/%lld [%s] ETA %s", phase.c_str(),
                 static_cast<long long>(done), static_cast<long long>(total), bar.c_str(),
                 formatDuration(eta).c_str());
    m_lineOpen = true;
    std::fflush(m_out);
    return;
  }
  const int tenth = static_cast<int>(fraction * 10);
  if (tenth == m_lastTenth) return;
  m_lastTenth = tenth;
  std::fprintf(m_out, "%s %lld/%lld (%s elapsed)\n", phase.c_str(), static_cast<long long>(done),
               static_cast<long long>(total), formatDuration(elapsed).c_str());
  std::fflush(m_out);
}

}  // namespace attnlab::app
