// LibTorch before Qt: Qt's `slots` keyword macro would break LibTorch's headers.
#include <torch/torch.h>

#include "app/gui/inspection_controller.h"

#include "core/inspect/attention_inspector.h"

#include <QMetaObject>
#include <QPointer>

#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace attnlab::app {

widgets::Matrix InspectionFrame::head(int layer, int head, bool fromScores) const {
  const auto& shared = fromScores ? scores : probabilities;
  if (!shared) return {};
  const auto& source = *shared;
  const std::size_t cells = static_cast<std::size_t>(length) * length;
  const std::size_t offset = (static_cast<std::size_t>(layer) * heads + head) * cells;
  if (layer < 0 || head < 0 || layer >= layers || head >= heads || source.size() < offset + cells)
    return {};
  return widgets::Matrix(
      length, length,
      std::vector<float>(source.begin() + static_cast<std::ptrdiff_t>(offset),
                         source.begin() + static_cast<std::ptrdiff_t>(offset + cells)));
}

struct InspectionController::Worker {
  struct Request {
    QString checkpoint, text;
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
      try {
        if (!inspector || inspectorCheckpoint != request.checkpoint) {
          inspector.reset();
          inspector = std::make_unique<core::AttentionInspector>(request.checkpoint.toStdString());
          inspectorCheckpoint = request.checkpoint;
        }
        const core::Inspection r = inspector->inspect(request.text.toStdString());
        frame.checkpoint = request.checkpoint;
        frame.step = r.step;
        frame.text = request.text;
        for (const auto& p : r.pieces) frame.pieces << QString::fromStdString(p);
        const auto sizes = r.probabilities.sizes();
        frame.layers = static_cast<int>(sizes[0]);
        frame.heads = static_cast<int>(sizes[1]);
        frame.length = static_cast<int>(sizes[2]);
        frame.truncated = r.truncated;
        frame.maxLength = inspector->maxLength();
        frame.residualScores = inspector->config().attention.residual != core::ResidualScores::None;
        const auto copy = [](const at::Tensor& t) {
          const at::Tensor c = t.to(torch::kFloat32).contiguous().cpu();
          return std::make_shared<const std::vector<float>>(c.data_ptr<float>(),
                                                            c.data_ptr<float>() + c.numel());
        };
        frame.probabilities = copy(r.probabilities);
        if (r.scores.defined()) frame.scores = copy(r.scores);
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

void InspectionController::inspect(const QString& checkpoint, const QString& text) {
  {
    std::lock_guard lock(m_worker->mutex);
    m_worker->pending = Worker::Request{checkpoint, text};
  }
  m_worker->wake.notify_all();
}

}  // namespace attnlab::app
