// LibTorch before Qt: Qt's `slots` keyword macro would break LibTorch's headers.
#include <torch/torch.h>

#include "app/gui/inspection_controller.h"

#include "core/config/attention_span.h"

#include "app/gui/inspection_cache.h"
#include "app/gui/inspection_extras.h"
#include "app/gui/jobs/job_runner.h"
#include "app/gui/jobs/model_cache.h"
#include "core/inspect/attention_inspector.h"
#include "widgets/plots/head_grid.h"

#include <QMetaObject>
#include <QPointer>

#if __has_include(<omp.h>)
#include <omp.h>
#define ATTNLAB_INSPECT_HAS_OMP 1
#else
#define ATTNLAB_INSPECT_HAS_OMP 0
#endif

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

namespace attnlab::app {

namespace {

// LibTorch 1.13 starts each thread's OpenMP team at half the logical cores on x86 (it assumes
// hyperthreads): one thread on a 2-core machine, which made a 512-token inspection of a
// 12 x 12 model take 1.3 s instead of 0.75 s. This thread's passes use every core; only this
// thread's OpenMP setting changes (not at::set_num_threads, whose process-wide default the
// threads of a run training beside it would start from).
void useEveryCore() {
  (void)at::get_num_threads();  // LibTorch's lazy per-thread set-up first, or it undoes ours
#if ATTNLAB_INSPECT_HAS_OMP
  omp_set_num_threads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
#endif
}

InspectionFrame frameOf(const core::Inspection& r, const QString& checkpoint, const QString& text,
                        const core::AttentionInspector& inspector) {
  InspectionFrame frame;
  frame.checkpoint = checkpoint;
  frame.step = r.step;
  frame.text = text;
  for (const auto& p : r.pieces) frame.pieces << QString::fromStdString(p);
  const auto sizes = r.probabilityLayers.at(0).sizes();  // [H, T, T]
  frame.layers = static_cast<int>(r.probabilityLayers.size());
  frame.heads = static_cast<int>(sizes[0]);
  frame.length = static_cast<int>(sizes[1]);
  frame.realTokens = static_cast<int>(r.realTokens);
  frame.truncated = r.truncated;
  frame.maxLength = inspector.maxLength();
  frame.residualScores = inspector.config().attention.residual != core::ResidualScores::None;
  frame.hasAsa = inspector.hasAsaMasks();
  frame.hasMlmHead = inspector.hasMlmHead();
  frame.bandHalfWidths = core::bandHalfWidths(inspector.config().model);
  // The pointers own a reference to the tensors: no copy (the inspector's tensors are
  // float32, contiguous and on the CPU already; anything else is converted once).
  for (const auto& t : r.probabilityLayers) frame.probabilities.push_back(shareTensor(t));
  for (const auto& t : r.scoreLayers) frame.scores.push_back(shareTensor(t));
  frame.asaMasks = shareTensor(r.asaMasks);
  frame.maps = r.maps;
  for (const auto& g : r.gateLayers) frame.gates.push_back(shareTensor(g));
  if (r.sinkLogits.defined()) {
    const at::Tensor sinks = r.sinkLogits.to(torch::kFloat32).contiguous();
    frame.sinkLogits.assign(sinks.data_ptr<float>(), sinks.data_ptr<float>() + sinks.numel());
  }
  return frame;
}

/// What one pass needs on its thread (copies: the GUI thread goes on meanwhile).
struct Pass {
  QString checkpoint, text;
  InspectionRequestOptions options;
  bool weightsOnly = false;  ///< the weights (and scores, masks) alone: extrasPending
  std::shared_ptr<InspectionCache> cache;
  std::shared_ptr<ModelCache> models;
};

/// A frame kept meanwhile (a prefetch pass may have made it since the request), or the model
/// run once. A frame with every view is kept in memory; the weights alone are not.
InspectionFrame runPass(const Pass& pass, const JobControl& control) {
  if (auto kept = pass.cache->find(pass.checkpoint, pass.text, pass.options)) {
    kept->cached = true;
    return std::move(*kept);
  }
  useEveryCore();  // each job's thread is new
  const auto started = std::chrono::steady_clock::now();
  const auto inspector = pass.models->borrow(pass.checkpoint.toStdString(), control.cancel);
  const bool beyond = pass.options.beyondWeights && !pass.weightsOnly;
  core::InspectOptions options;
  options.scores = pass.options.scores;
  options.asaMasks = pass.options.asaMasks;
  options.stacked = false;  // the model's own layers: no 150 MB stack per tensor
  options.norms = beyond;
  options.lensTop = beyond ? pass.options.lensTop : 0;
  for (const int p : pass.options.maskPositions) options.maskPositions.push_back(p);
  const core::Inspection r = inspector->inspect(pass.text.toStdString(), options);
  InspectionFrame frame = frameOf(r, pass.checkpoint, pass.text, *inspector);
  frame.maskRequest = pass.options.maskPositions;
  if (beyond) addBeyondWeights(frame, r, inspector->tokenizer());
  frame.thumbnails = std::make_shared<const std::vector<widgets::Matrix>>(
      widgets::headThumbnails(frame.headPointers(), frame.length, frame.length));
  addViewThumbnails(frame);
  frame.inspectMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  frame.extrasPending = pass.weightsOnly && pass.options.beyondWeights;
  if (!frame.extrasPending) pass.cache->insert(frame);
  return frame;
}

}  // namespace

InspectionController::InspectionController(QObject* parent)
    : QObject(parent),
      m_cache(std::make_shared<InspectionCache>(kDefaultCacheBytes)),
      m_models(std::make_shared<ModelCache>()),
      m_runner(std::make_unique<JobRunner>()) {
  qRegisterMetaType<attnlab::app::InspectionFrame>("attnlab::app::InspectionFrame");
}

InspectionController::~InspectionController() = default;

void InspectionController::setModels(std::shared_ptr<ModelCache> models) {
  if (models) m_models = std::move(models);
}

void InspectionController::inspect(const QString& checkpoint, const QString& text,
                                   const InspectionRequestOptions& options) {
  const quint64 serial = ++m_serial;
  if (auto kept = m_cache->find(checkpoint, text, options)) {
    m_pending.reset();  // the newest request wins, and this one is answered
    kept->cached = true;
    QPointer<InspectionController> self(this);
    QMetaObject::invokeMethod(
        this,
        [self, frame = std::move(*kept), serial] {
          if (self && serial == self->m_serial) emit self->inspected(frame);
        },
        Qt::QueuedConnection);
    return;
  }
  // The views beyond the weights cost a second capture and the lens: a request the person
  // waits for shows the weights first, then the frame with every view.
  m_pending = Request{checkpoint, text, options, serial, options.beyondWeights};
  pump();
}

void InspectionController::prefetch(const QStringList& checkpoints, const QString& text,
                                    const InspectionRequestOptions& options) {
  m_prefetches.clear();
  for (const QString& c : checkpoints) m_prefetches.push_back(Request{c, text, options, 0, false});
  pump();
}

void InspectionController::pump() {
  if (m_runner->isRunning()) return;  // called again when the pass ends
  if (m_pending) {
    const Request request = *m_pending;
    m_pending.reset();
    startPass(request);
    return;
  }
  while (!m_prefetches.empty()) {
    const Request request = m_prefetches.front();
    m_prefetches.pop_front();
    if (m_cache->contains(request.checkpoint, request.text, request.options)) continue;
    startPass(request);
    return;
  }
}

void InspectionController::startPass(const Request& request) {
  const Pass pass{request.checkpoint,   request.text, request.options,
                  request.weightsFirst, m_cache,      m_models};
  m_runner->start<InspectionFrame>(
      QStringLiteral("inspection"),
      [pass](const JobControl& control) { return runPass(pass, control); },
      [this, request](const JobResult<InspectionFrame>& r) {
        passEnded(request, r.ok(), r.value.get(), r.message);
      });
}

void InspectionController::passEnded(const Request& request, bool ok, const InspectionFrame* frame,
                                     const QString& error) {
  const bool newest = request.serial != 0 && request.serial == m_serial;
  if (request.serial == 0) {
    // A failure is the request's to tell; a frame made meanwhile was not this pass's.
    if (ok && !frame->cached) emit prefetched(request.checkpoint, request.text);
  } else if (newest) {
    if (ok)
      emit inspected(*frame);
    else
      emit failed(error);
  }  // else superseded by a newer request (its frame is kept in memory)
  // The weights are shown: every view follows, unless a newer request waits.
  if (ok && newest && frame->extrasPending && !m_pending) {
    Request full = request;
    full.weightsFirst = false;
    m_pending = full;
  }
  pump();
}

bool InspectionController::isCached(const QString& checkpoint, const QString& text,
                                    const InspectionRequestOptions& options) const {
  return m_cache->contains(checkpoint, text, options);
}

void InspectionController::setCacheBudget(std::size_t bytes) {
  m_cache->setBudget(bytes);
}

}  // namespace attnlab::app
