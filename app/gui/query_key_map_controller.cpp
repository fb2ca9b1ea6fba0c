// LibTorch (through the analysis headers) before Qt: Qt's `slots` macro breaks its headers.
#include "analysis/runs/evaluation_set.h"
#include "analysis/runs/query_key_sample.h"
#include "analysis/runs/run_selection.h"
#include "core/errors/error.h"
#include "core/inspect/attention_inspector.h"

#include "app/gui/query_key_map_controller.h"
#include "app/gui/queued_progress.h"

#include <QMetaObject>
#include <QPointer>

#include <chrono>
#include <exception>

namespace attnlab::app {

QueryKeyMapController::QueryKeyMapController(QObject* parent) : QObject(parent) {}

QueryKeyMapController::~QueryKeyMapController() {
  cancel();
  join();
}

void QueryKeyMapController::join() {
  if (m_thread.joinable()) m_thread.join();
}

void QueryKeyMapController::cancel() {
  if (m_cancel) m_cancel->store(true);
}

std::shared_ptr<const QueryKeyMapResult> QueryKeyMapController::compute(
    const QueryKeyMapRequest& request, const Progress& progress, const std::atomic<bool>* cancel) {
  progress(analysis::kPhaseLoadCheckpoint, 0, 1);
  const auto selected =
      analysis::selectCheckpoint(request.runDirectory.toStdString(), request.step);
  core::AttentionInspector inspector(selected.checkpoint);
  // Refused by the model's shape before the evaluation set, which can take long to build.
  analysis::checkQueryKeyRequest(inspector, request.layer, request.head, request.maxTokens);
  progress(analysis::kPhaseLoadCheckpoint, 1, 1);
  analysis::throwIfCancelled(cancel, analysis::kPhaseLoadCheckpoint);
  analysis::EvaluationSet set(inspector, selected.runDir, analysis::EvaluationSpec{}, progress,
                              cancel);
  auto result = std::make_shared<QueryKeyMapResult>();
  result->sample = analysis::sampleQueryKeys(inspector, set, request.layer, request.head,
                                             request.maxTokens, progress, cancel);
  // A cancel during the last batch is still a cancel: the window asked for nothing more.
  analysis::throwIfCancelled(cancel, analysis::kPhaseQueryKeys);
  result->runDirectory = QString::fromStdString(selected.runDir.string());
  result->checkpoint = QString::fromStdString(selected.checkpoint.string());
  result->step = inspector.step();
  result->evaluation = QString::fromStdString(set.description());
  result->maxTokens = request.maxTokens;
  return result;
}

bool QueryKeyMapController::start(const QueryKeyMapRequest& request, QString* whyNot) {
  if (m_running) {
    if (whyNot) *whyNot = QStringLiteral("a query-key map is still being made; cancel it or wait");
    return false;
  }
  join();  // the previous thread has reported; it may still be returning
  m_running = true;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  QPointer<QueryKeyMapController> self(this);
  auto cancelFlag = m_cancel;
  m_thread = std::thread([self, cancelFlag, request] {
    const auto report = queuedProgress(self);
    std::shared_ptr<const QueryKeyMapResult> result;
    bool cancelled = false;
    QString message;
    try {
      result = compute(request, report, cancelFlag.get());
    } catch (const Cancelled& e) {
      cancelled = true;
      message = QString::fromStdString(e.what());
    } catch (const std::exception& e) {
      message = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        self.data(),
        [self, result, cancelled, message] {
          if (!self) return;
          self->m_running = false;
          emit self->finished(result != nullptr, cancelled, message, result);
        },
        Qt::QueuedConnection);
  });
  emit started();
  return true;
}

}  // namespace attnlab::app
