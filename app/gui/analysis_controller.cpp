// LibTorch (through the analysis headers) before Qt: Qt's `slots` macro breaks its headers.
#include "analysis/jobs/report_jobs.h"
#include "analysis/report/head_comparison_report.h"
#include "analysis/report/report_layout.h"

#include "app/gui/analysis_controller.h"
#include "app/gui/jobs/job_runner.h"
#include "app/gui/jobs/model_cache.h"

#include <QFileInfo>

#include <utility>

namespace attnlab::app {

AnalysisController::AnalysisController(QObject* parent)
    : QObject(parent), m_runner(new JobRunner(this)), m_models(std::make_shared<ModelCache>()) {
  connect(m_runner, &JobRunner::started, this, &AnalysisController::started);
  connect(m_runner, &JobRunner::progress, this, &AnalysisController::progress);
}

AnalysisController::~AnalysisController() {
  delete m_runner;  // cancels and joins, before this object's members go
}

void AnalysisController::cancel() {
  m_runner->cancel();
}

bool AnalysisController::isRunning() const {
  return m_runner->isRunning();
}

bool AnalysisController::start(const QString& runDirectory, std::optional<qint64> step, int threads,
                               QString* whyNot, const AnalysisJobOptions& job, ReportJobDone done) {
  analysis::AnalyzeOptions options;
  options.run = runDirectory.toStdString();
  if (step) options.step = *step;
  options.statistics.threads = threads;
  options.evaluation.textFile = job.textFile.toStdString();
  options.evaluation.maxSequences = job.maxSequences;
  options.statistics.pairwiseSequences = job.pairwiseSequences;
  options.overCheckpoints = job.overCheckpoints;
  options.heads = job.heads;
  return launch(
      QStringLiteral("the analysis of %1").arg(runDirectory),
      [options](const JobControl& c) {
        // The same job as attnlab-cli analyze: the report goes where the CLI puts it.
        const auto written = analysis::runAnalysisJob(options, {}, c.progress, c.cancel);
        return (written.folder / analysis::reportFileName(analysis::ReportKind::Attention))
            .string();
      },
      std::move(done), whyNot);
}

bool AnalysisController::startProbe(const QString& runDirectory, const ProbeRequest& request,
                                    QString* whyNot, ReportJobDone done) {
  analysis::CorefProbeOptions options;
  options.run = runDirectory.toStdString();
  options.dataset = request.dataset.trimmed().toStdString();
  options.syntheticSize = request.size;
  options.seed = request.seed;
  options.distractor = request.distractor;
  return launch(
      QStringLiteral("the probe of %1").arg(runDirectory),
      [options](const JobControl& c) {
        const auto written = analysis::runProbeJob(
            options, {},
            [&c](std::int64_t done, std::int64_t total) { c.progress("examples", done, total); },
            c.cancel);
        return (written.folder / analysis::reportFileName(analysis::ReportKind::Coref)).string();
      },
      std::move(done), whyNot);
}

bool AnalysisController::startHeadComparison(const QString& runA, const QString& runB,
                                             QString* whyNot, ReportJobDone done) {
  analysis::CompareHeadsOptions options;  // the CLI's defaults
  options.runA = runA.toStdString();
  options.runB = runB.toStdString();
  return launch(
      QStringLiteral("the head comparison of %1 and %2")
          .arg(QFileInfo(runA).fileName(), QFileInfo(runB).fileName()),
      [options](const JobControl& c) {
        // The same job as attnlab-cli compare A B --heads, into the CLI's folder.
        const auto written = analysis::runHeadComparisonJob(options, {}, c.progress, c.cancel);
        return (written.folder / analysis::kHeadComparisonJson).string();
      },
      std::move(done), whyNot);
}

bool AnalysisController::launch(const QString& label, Work work, ReportJobDone done,
                                QString* whyNot) {
  return m_runner->start<std::string>(
      label, std::move(work),
      [this, done = std::move(done)](const JobResult<std::string>& r) {
        ReportJobEnd end{r.ok(), r.cancelled(), r.message,
                         r.value ? QString::fromStdString(*r.value) : QString()};
        emit finished(end.ok, end.cancelled, end.message, end.reportPath);
        if (done) done(end);
      },
      whyNot);
}

}  // namespace attnlab::app
