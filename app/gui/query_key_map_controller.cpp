// LibTorch (through the analysis headers) before Qt: Qt's `slots` macro breaks its headers.
#include "analysis/jobs/query_key_map_job.h"
#include "core/inspect/attention_inspector.h"

#include "app/gui/jobs/job_runner.h"
#include "app/gui/jobs/model_cache.h"
#include "app/gui/query_key_map_controller.h"

#include <utility>

namespace attnlab::app {

QueryKeyMapController::QueryKeyMapController(QObject* parent)
    : QObject(parent), m_runner(new JobRunner(this)) {}

QueryKeyMapController::~QueryKeyMapController() {
  delete m_runner;  // cancels and joins, before this object's members go
}

void QueryKeyMapController::cancel() {
  m_runner->cancel();
}

bool QueryKeyMapController::isRunning() const {
  return m_runner->isRunning();
}

bool QueryKeyMapController::start(const QueryKeyMapRequest& request, QString* whyNot) {
  analysis::QueryKeyMapJobOptions options;
  options.run = request.runDirectory.toStdString();
  options.step = request.step;
  options.layer = request.layer;
  options.head = request.head;
  options.maxTokens = request.maxTokens;
  analysis::ModelLender lender;
  if (m_models)
    lender = [models = m_models](const std::filesystem::path& checkpoint,
                                 const std::atomic<bool>* cancel) {
      return models->borrow(checkpoint, cancel);
    };
  using Result = std::shared_ptr<const QueryKeyMapResult>;
  return m_runner->start<Result>(
      QStringLiteral("the query-key map"),
      [options, lender](const JobControl& c) -> Result {
        // The same job as attnlab-cli qk-map; no file.
        auto job = analysis::runQueryKeyMapJob(options, {}, c.progress, c.cancel, lender);
        auto result = std::make_shared<QueryKeyMapResult>();
        result->sample = std::move(job.sample);
        result->runDirectory = QString::fromStdString(job.runDir.string());
        result->checkpoint = QString::fromStdString(job.checkpoint.string());
        result->step = job.step;
        result->evaluation = QString::fromStdString(job.evaluation);
        result->maxTokens = job.maxTokens;
        return result;
      },
      [this](const JobResult<Result>& r) {
        emit finished(r.ok(), r.cancelled(), r.message, r.value ? *r.value : nullptr);
      },
      whyNot);
}

}  // namespace attnlab::app
