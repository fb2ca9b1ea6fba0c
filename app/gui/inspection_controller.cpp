// LibTorch before Qt: Qt's `slots` keyword macro would break LibTorch's headers.
#include <torch/torch.h>

#include "app/gui/inspection_controller.h"

#include "app/gui/inspection_cache.h"
#include "app/gui/inspection_extras.h"
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
#include <condition_variable>
#include <deque>
#include <exception>
#include <list>
#include <mutex>
#include <optional>
#include <thread>

namespace attnlab::app {

const float* InspectionFrame::headData(int layer, int head, bool fromScores) const {
  const auto& shared = fromScores ? scores : probabilities;
  if (layer < 0 || head < 0 || layer >= static_cast<int>(shared.size()) || head >= heads ||
      !shared[static_cast<std::size_t>(layer)])
    return nullptr;
  const std::size_t cells = static_cast<std::size_t>(length) * length;
  return shared[static_cast<std::size_t>(layer)].get() + static_cast<std::size_t>(head) * cells;
}

std::vector<const float*> InspectionFrame::headPointers(bool fromScores) const {
  std::vector<const float*> out;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) {
      const float* p = headData(l, h, fromScores);
      if (!p) return {};
      out.push_back(p);
    }
  return out;
}

widgets::Matrix InspectionFrame::head(int layer, int head, bool fromScores) const {
  const float* first = headData(layer, head, fromScores);
  if (!first) return {};
  return widgets::Matrix(
      length, length, std::vector<float>(first, first + static_cast<std::size_t>(length) * length));
}

widgets::Matrix InspectionFrame::asaMask(int layer) const {
  if (!asaMasks || layer < 0 || layer >= layers) return {};
  const std::size_t cells = static_cast<std::size_t>(length) * length;
  const float* first = asaMasks.get() + static_cast<std::size_t>(layer) * cells;
  return widgets::Matrix(length, length, std::vector<float>(first, first + cells));
}

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

}  // namespace

struct InspectionController::Worker {
  struct Request {
    QString checkpoint, text;
    InspectionRequestOptions options;
    quint64 serial = 0;  ///< the GUI's request number; 0 for a prefetch pass
  };
  /// Models kept: the current checkpoint's and its two neighbours' (what prefetching loads).
  static constexpr std::size_t kInspectors = 3;

  std::mutex mutex;
  std::condition_variable wake;
  std::optional<Request> pending;
  std::deque<Request> prefetches;  ///< done, in order, whenever `pending` is empty
  bool stop = false;
  std::thread thread;
  InspectionCache cache{InspectionController::kDefaultCacheBytes};
  // Owned by the thread: the inspectors of the last checkpoints used, most recent first.
  std::list<std::pair<QString, std::unique_ptr<core::AttentionInspector>>> inspectors;

  core::AttentionInspector& inspectorFor(const QString& checkpoint) {
    const auto it = std::find_if(inspectors.begin(), inspectors.end(),
                                 [&](const auto& e) { return e.first == checkpoint; });
    if (it != inspectors.end()) {
      inspectors.splice(inspectors.begin(), inspectors, it);
      return *inspectors.front().second;
    }
    // Free the oldest model before loading the next, so at most kInspectors live at once.
    if (inspectors.size() >= kInspectors) inspectors.pop_back();
    auto inspector = std::make_unique<core::AttentionInspector>(checkpoint.toStdString());
    inspectors.emplace_front(checkpoint, std::move(inspector));
    return *inspectors.front().second;
  }

  static InspectionFrame frameOf(const core::Inspection& r, const Request& request,
                                 const core::AttentionInspector& inspector) {
    InspectionFrame frame;
    frame.checkpoint = request.checkpoint;
    frame.step = r.step;
    frame.text = request.text;
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
    // The pointers own a reference to the tensors: no copy (the inspector's tensors are
    // float32, contiguous and on the CPU already; anything else is converted once).
    for (const auto& t : r.probabilityLayers) frame.probabilities.push_back(shareTensor(t));
    for (const auto& t : r.scoreLayers) frame.scores.push_back(shareTensor(t));
    frame.asaMasks = shareTensor(r.asaMasks);
    return frame;
  }

  InspectionFrame inspect(const Request& request) {
    const auto started = std::chrono::steady_clock::now();
    core::AttentionInspector& inspector = inspectorFor(request.checkpoint);
    core::InspectOptions options;
    options.scores = request.options.scores;
    options.asaMasks = request.options.asaMasks;
    options.stacked = false;  // the model's own layers: no 150 MB stack per tensor
    options.norms = request.options.beyondWeights;
    options.lensTop = request.options.beyondWeights ? request.options.lensTop : 0;
    for (const int p : request.options.maskPositions) options.maskPositions.push_back(p);
    const core::Inspection r = inspector.inspect(request.text.toStdString(), options);
    InspectionFrame frame = frameOf(r, request, inspector);
    frame.maskRequest = request.options.maskPositions;
    if (request.options.beyondWeights) addBeyondWeights(frame, r, inspector.tokenizer());
    frame.thumbnails = std::make_shared<const std::vector<widgets::Matrix>>(
        widgets::headThumbnails(frame.headPointers(), frame.length, frame.length));
    addViewThumbnails(frame);
    frame.inspectMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    return frame;
  }

  void run(QPointer<InspectionController> owner) {
    useEveryCore();
    for (;;) {
      Request request;
      {
        std::unique_lock lock(mutex);
        wake.wait(lock, [&] { return stop || pending.has_value() || !prefetches.empty(); });
        if (stop) return;
        if (pending) {
          request = std::move(*pending);
          pending.reset();
        } else {
          request = std::move(prefetches.front());
          prefetches.pop_front();
        }
      }
      const bool prefetching = request.serial == 0;
      InspectionFrame frame;
      QString error;
      // A prefetch pass may have made the frame since the request was sent.
      if (auto kept = cache.find(request.checkpoint, request.text, request.options)) {
        if (prefetching) continue;
        frame = std::move(*kept);
        frame.cached = true;
      } else {
        try {
          // The views beyond the weights cost a second capture and the lens: a request the
          // person waits for shows the weights first, then the frame with every view.
          if (!prefetching && request.options.beyondWeights) {
            deliver(owner, weightsFirst(request), {}, request.serial);
            if (newerRequestWaits()) continue;  // served next; this text's views not needed
          }
          frame = inspect(request);
          cache.insert(frame);
        } catch (const std::exception& e) {
          error = QString::fromStdString(e.what());
        }
      }
      if (prefetching && !error.isEmpty()) continue;  // the request itself will say what failed
      deliver(owner, std::move(frame), error, request.serial);
    }
  }

  /// The request's weights (and scores, masks) alone: InspectionFrame::extrasPending.
  InspectionFrame weightsFirst(const Request& request) {
    Request plain = request;
    plain.options.beyondWeights = false;
    plain.options.lensTop = 0;
    InspectionFrame frame = inspect(plain);
    frame.extrasPending = true;
    return frame;
  }

  bool newerRequestWaits() {
    std::lock_guard lock(mutex);
    return stop || pending.has_value();
  }

  /// Hands a frame (or an error) to the GUI thread, where only the newest request's answer
  /// is shown.
  static void deliver(QPointer<InspectionController> owner, InspectionFrame frame,
                      const QString& error, quint64 serial) {
    QMetaObject::invokeMethod(
        owner.data(),
        [owner, frame = std::move(frame), error, serial] {
          if (!owner) return;
          if (serial == 0)
            emit owner->prefetched(frame.checkpoint, frame.text);
          else if (serial != owner->m_serial)
            return;  // superseded by a newer request (its frame is kept in memory)
          else if (error.isEmpty())
            emit owner->inspected(frame);
          else
            emit owner->failed(error);
        },
        Qt::QueuedConnection);
  }
};

InspectionController::InspectionController(QObject* parent)
    : QObject(parent), m_worker(std::make_unique<Worker>()) {
  qRegisterMetaType<attnlab::app::InspectionFrame>("attnlab::app::InspectionFrame");
  QPointer<InspectionController> self(this);
  m_worker->thread = std::thread([w = m_worker.get(), self] { w->run(self); });
}

InspectionController::~InspectionController() {
  {
    std::lock_guard lock(m_worker->mutex);
    m_worker->stop = true;
  }
  m_worker->wake.notify_all();
  m_worker->thread.join();
}

void InspectionController::inspect(const QString& checkpoint, const QString& text,
                                   const InspectionRequestOptions& options) {
  const quint64 serial = ++m_serial;
  if (auto kept = m_worker->cache.find(checkpoint, text, options)) {
    {
      std::lock_guard lock(m_worker->mutex);
      m_worker->pending.reset();  // the newest request wins, and this one is answered
    }
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
  {
    std::lock_guard lock(m_worker->mutex);
    m_worker->pending = Worker::Request{checkpoint, text, options, serial};
  }
  m_worker->wake.notify_all();
}

void InspectionController::prefetch(const QStringList& checkpoints, const QString& text,
                                    const InspectionRequestOptions& options) {
  {
    std::lock_guard lock(m_worker->mutex);
    m_worker->prefetches.clear();
    for (const QString& c : checkpoints)
      m_worker->prefetches.push_back(Worker::Request{c, text, options, 0});
  }
  m_worker->wake.notify_all();
}

bool InspectionController::isCached(const QString& checkpoint, const QString& text,
                                    const InspectionRequestOptions& options) const {
  return m_worker->cache.contains(checkpoint, text, options);
}

void InspectionController::setCacheBudget(std::size_t bytes) {
  m_worker->cache.setBudget(bytes);
}

}  // namespace attnlab::app
