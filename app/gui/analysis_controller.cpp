// LibTorch (through the analysis headers) before Qt: Qt's `slots` macro breaks its headers.
#include "analysis/report/report_files.h"
#include "analysis/runs/attention_analysis.h"
#include "analysis/runs/run_selection.h"
#include "core/errors/error.h"

#include "app/gui/analysis_controller.h"

#include <QMetaObject>
#include <QPointer>

#include <chrono>
#include <exception>
#include <filesystem>
#include <mutex>

namespace attnlab::app {

AnalysisController::AnalysisController(QObject* parent) : QObject(parent) {}

AnalysisController::~AnalysisController() {
  cancel();
  join();
}

void AnalysisController::join() {
  if (m_thread.joinable()) m_thread.join();
}

void AnalysisController::cancel() {
  if (m_cancel) m_cancel->store(true);
}

bool AnalysisController::start(const QString& runDirectory, std::optional<qint64> step, int threads,
                               QString* whyNot) {
  if (m_running) {
    if (whyNot)
      *whyNot = QStringLiteral("an analysis of %1 is still running; cancel it or wait")
                    .arg(m_runDirectory);
    return false;
  }
  join();  // the previous thread has reported; it may still be returning
  m_running = true;
  m_runDirectory = runDirectory;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  QPointer<AnalysisController> self(this);
  auto cancelFlag = m_cancel;
  const std::string run = runDirectory.toStdString();
  m_thread = std::thread([self, cancelFlag, run, step, threads] {
    // Progress is thinned to one queued call per 100 ms (and every phase change), so a fast
    // analysis does not flood the event loop.
    using Clock = std::chrono::steady_clock;
    Clock::time_point last{};
    std::string lastPhase;
    const auto report = [&](const std::string& phase, std::int64_t done, std::int64_t total) {
      const auto now = Clock::now();
      if (phase == lastPhase && done < total && now - last < std::chrono::milliseconds(100)) return;
      last = now;
      lastPhase = phase;
      const QString p = QString::fromStdString(phase);
      QMetaObject::invokeMethod(
          self.data(),
          [self, p, done, total] {
            if (self) emit self->progress(p, done, total);
          },
          Qt::QueuedConnection);
    };
    bool ok = false, cancelled = false;
    QString message, reportPath;
    std::filesystem::path out;
    try {
      analysis::AnalyzeOptions options;
      options.run = run;
      if (step) options.step = *step;
      options.statistics.threads = threads;
      // The folder is settled before the work, as the CLI does.
      const auto selected = analysis::selectCheckpoint(options.run, options.step);
      out = selected.runDir / "analysis" / ("step-" + std::to_string(selected.step));
      analysis::prepareReportFolder(out);
      options.step = selected.step;
      const auto result = analysis::analyzeRun(options, report, cancelFlag.get());
      analysis::throwIfCancelled(cancelFlag.get(), "writing the report");
      analysis::writeAnalysisReport(result, out);
      reportPath = QString::fromStdString((out / "analysis.json").string());
      ok = true;
    } catch (const Cancelled& e) {
      cancelled = true;
      message = QString::fromStdString(e.what());
    } catch (const std::exception& e) {
      message = QString::fromStdString(e.what());
    }
    if (!ok && !out.empty()) {
      std::error_code ec;
      std::filesystem::remove(out, ec);  // the folder made for it, if it is still empty
    }
    QMetaObject::invokeMethod(
        self.data(),
        [self, ok, cancelled, message, reportPath] {
          if (!self) return;
          self->m_running = false;
          emit self->finished(ok, cancelled, message, reportPath);
        },
        Qt::QueuedConnection);
  });
  emit started();
  return true;
}

}  // namespace attnlab::app
