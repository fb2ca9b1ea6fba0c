// LibTorch (through the analysis headers) before Qt: Qt's `slots` macro breaks its headers.
#include "analysis/jobs/report_jobs.h"
#include "analysis/report/head_comparison_report.h"
#include "analysis/report/report_files.h"
#include "analysis/report/report_layout.h"
#include "analysis/runs/head_comparison.h"
#include "analysis/runs/run_selection.h"
#include "core/errors/error.h"

#include "app/gui/analysis_controller.h"
#include "app/gui/queued_progress.h"

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
                               QString* whyNot, const AnalysisJobOptions& job) {
  const std::string run = runDirectory.toStdString();
  return launch(
      runDirectory,
      [run, step, threads, job](const auto& progress, const std::atomic<bool>* cancel) {
        analysis::AnalyzeOptions options;
        options.run = run;
        if (step) options.step = *step;
        options.statistics.threads = threads;
        options.evaluation.textFile = job.textFile.toStdString();
        options.evaluation.maxSequences = job.maxSequences;
        options.statistics.pairwiseSequences = job.pairwiseSequences;
        options.overCheckpoints = job.overCheckpoints;
        options.heads = job.heads;
        // The same job as attnlab-cli analyze: the report goes where the CLI puts it.
        const auto written = analysis::runAnalysisJob(options, {}, progress, cancel);
        return (written.folder / analysis::reportFileName(analysis::ReportKind::Attention))
            .string();
      },
      whyNot);
}

bool AnalysisController::startProbe(const QString& runDirectory, const ProbeRequest& request,
                                    QString* whyNot) {
  const std::string run = runDirectory.toStdString();
  analysis::CorefProbeOptions probe;
  probe.dataset = request.dataset.trimmed().toStdString();
  probe.syntheticSize = request.size;
  probe.seed = request.seed;
  probe.distractor = request.distractor;
  return launch(
      runDirectory,
      [run, probe](const auto& progress, const std::atomic<bool>* cancel) {
        analysis::CorefProbeOptions options = probe;
        options.run = run;
        const auto written = analysis::runProbeJob(
            options, {},
            [&progress](std::int64_t done, std::int64_t total) {
              progress("examples", done, total);
            },
            cancel);
        return (written.folder / analysis::reportFileName(analysis::ReportKind::Coref)).string();
      },
      whyNot);
}

bool AnalysisController::startHeadComparison(const QString& runA, const QString& runB,
                                             QString* whyNot) {
  const std::string a = runA.toStdString(), b = runB.toStdString();
  return launch(
      runA,
      [a, b](const auto& progress, const std::atomic<bool>* cancel) {
        const auto first = analysis::selectCheckpoint(a, std::nullopt);
        const auto second = analysis::selectCheckpoint(b, std::nullopt);
        const auto folder =
            analysis::comparisonFolder(first.runDir, first.step, second.runDir, second.step);
        analysis::prepareReportFolder(folder);  // an unwritable run fails before the work
        analysis::CompareHeadsOptions options;
        options.runA = first.checkpoint;
        options.runB = second.checkpoint;
        const auto report = analysis::compareHeads(options, progress, cancel);
        analysis::writeHeadComparison(report, folder);
        return (folder / analysis::kHeadComparisonJson).string();
      },
      whyNot);
}

bool AnalysisController::launch(const QString& runDirectory, Job job, QString* whyNot) {
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
  m_thread = std::thread([self, cancelFlag, job = std::move(job)] {
    const auto report = queuedProgress(self);
    bool ok = false, cancelled = false;
    QString message, reportPath;
    try {
      reportPath = QString::fromStdString(job(report, cancelFlag.get()));
      ok = true;
    } catch (const Cancelled& e) {
      cancelled = true;
      message = QString::fromStdString(e.what());
    } catch (const std::exception& e) {
      message = QString::fromStdString(e.what());
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
