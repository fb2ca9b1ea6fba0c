// LibTorch before Qt: Qt's `slots` keyword macro would break LibTorch's headers.
#include <torch/torch.h>

#include "app/gui/inspection_controller.h"

#include "core/inspect/attention_inspector.h"

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
#include <exception>
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
  };
  std::mutex mutex;
  std::condition_variable wake;
  std::optional<Request> pending;
  bool stop = false;
  std::thread thread;
  // Owned by the thread: the inspector of the last checkpoint used.
  std::unique_ptr<core::AttentionInspector> inspector;
  QString inspectorCheckpoint;

  void run(QPointer<InspectionController> owner) {
    useEveryCore();
    for (;;) {
      Request request;
      {
        std::unique_lock lock(mutex);
        wake.wait(lock, [&] { return stop || pending.has_value(); });
        if (stop) return;
        request = std::move(*pending);
        pending.reset();
      }
      InspectionFrame frame;
      QString error;
      const auto started = std::chrono::steady_clock::now();
      try {
        if (!inspector || inspectorCheckpoint != request.checkpoint) {
          inspector.reset();
          inspector = std::make_unique<core::AttentionInspector>(request.checkpoint.toStdString());
          inspectorCheckpoint = request.checkpoint;
        }
        core::InspectOptions options;
        options.scores = request.options.scores;
        options.asaMasks = request.options.asaMasks;
        options.stacked = false;  // the model's own layers: no 150 MB stack per tensor
        const core::Inspection r = inspector->inspect(request.text.toStdString(), options);
        frame.checkpoint = request.checkpoint;
        frame.step = r.step;
        frame.text = request.text;
        for (const auto& p : r.pieces) frame.pieces << QString::fromStdString(p);
        const auto sizes = r.probabilityLayers.at(0).sizes();  // [H, T, T]
        frame.layers = static_cast<int>(r.probabilityLayers.size());
        frame.heads = static_cast<int>(sizes[0]);
        frame.length = static_cast<int>(sizes[1]);
        frame.truncated = r.truncated;
        frame.maxLength = inspector->maxLength();
        frame.residualScores = inspector->config().attention.residual != core::ResidualScores::None;
        frame.hasAsa = inspector->hasAsaMasks();
        // The pointer owns a reference to the tensor: no copy (the inspector's tensors are
        // float32, contiguous and on the CPU already; anything else is converted once).
        const auto share = [](const at::Tensor& t) -> std::shared_ptr<const float> {
          if (!t.defined()) return {};
          at::Tensor c = t.to(torch::kCPU, torch::kFloat32).contiguous();
          const float* data = c.data_ptr<float>();
          return std::shared_ptr<const float>(
              data, [keep = std::move(c)](const float*) mutable { keep.reset(); });
        };
        for (const auto& t : r.probabilityLayers) frame.probabilities.push_back(share(t));
        for (const auto& t : r.scoreLayers) frame.scores.push_back(share(t));
        frame.asaMasks = share(r.asaMasks);
        frame.inspectMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count();
      } catch (const std::exception& e) {
        error = QString::fromStdString(e.what());
        if (!inspector) inspectorCheckpoint.clear();
      }
      QMetaObject::invokeMethod(
          owner.data(),
          [owner, frame = std::move(frame), error] {
            if (!owner) return;
            if (error.isEmpty())
              emit owner->inspected(frame);
            else
              emit owner->failed(error);
          },
          Qt::QueuedConnection);
    }
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
  {
    std::lock_guard lock(m_worker->mutex);
    m_worker->pending = Worker::Request{checkpoint, text, options};
  }
  m_worker->wake.notify_all();
}

}  // namespace attnlab::app
