#include "app/gui/training_controller.h"

#include "core/runtime/memory_policy.h"
#include "core/train/trainer.h"
#include "core/train/training_control.h"

#include <QDateTime>
#include <QMetaObject>

#include <atomic>
#include <exception>
#include <variant>

namespace attnlab::app {

namespace {
double nowSeconds() {
  return static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

/// One visitor from a lambda per event type: a new kind of event does not compile until
/// drain() says what it does with it.
template <class... Handlers>
struct Overloaded : Handlers... {
  using Handlers::operator()...;
};
template <class... Handlers>
Overloaded(Handlers...) -> Overloaded<Handlers...>;
}  // namespace

/// Runs on the engine thread: buffers events and posts one drain per batch.
class TrainingController::Observer : public core::TrainingObserver {
 public:
  Observer(TrainingController* owner, core::TrainingControl* control)
      : m_owner(owner), m_control(control) {}

  std::atomic<std::int64_t> pauseAt{-1};

  void onEvent(const core::TrainingEvent& event) override {
    if (const auto* step = std::get_if<core::StepEvent>(&event)) {
      const std::int64_t at = pauseAt.load();
      if (at >= 0 && step->step >= at) {
        pauseAt = -1;
        m_control->setPaused(true);  // the engine holds at its next step boundary
      }
      // Between steps, on the engine thread: keeps resident memory level over long runs
      // without stalling the GUI (core/runtime/memory_policy.h).
      m_releaser.tick();
    }
    Item item;
    item.event = event;
    push(std::move(item));
  }

  void finish(bool ok, std::string error) {
    Item item;
    item.end = true;
    item.ok = ok;
    item.error = std::move(error);
    push(std::move(item));
  }

  struct Item {
    core::TrainingEvent event;
    bool end = false;
    bool ok = true;
    std::string error;
  };

  std::vector<Item> take() {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<Item> out;
    out.swap(m_items);
    return out;
  }

 private:
  void push(Item item) {
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      first = m_items.empty();
      m_items.push_back(std::move(item));
    }
    // Only the first item of a batch posts; the drain takes everything queued by then.
    if (first) QMetaObject::invokeMethod(m_owner, &TrainingController::drain, Qt::QueuedConnection);
  }

  TrainingController* m_owner;
  core::TrainingControl* m_control;
  core::FreedMemoryReleaser m_releaser;
  std::mutex m_mutex;
  std::vector<Item> m_items;
};

TrainingController::TrainingController(QObject* parent)
    : TrainingSession(parent), m_control(std::make_unique<core::TrainingControl>()) {}

TrainingController::~TrainingController() {
  if (m_thread.joinable()) {
    m_control->requestStop();
    m_thread.join();
  }
}

bool TrainingController::start(const core::RunConfig& config, const QString& runDirectory,
                               QString* whyNot) {
  if (m_running) {
    if (whyNot)
      *whyNot =
          QStringLiteral("%1 is still training in this window; stop it first").arg(m_runDirectory);
    return false;
  }
  join();  // the previous run's thread has ended (finished was delivered)
  m_control = std::make_unique<core::TrainingControl>();
  m_observer = std::make_unique<Observer>(this, m_control.get());
  m_observer->pauseAt = m_pendingPauseAt;
  m_pendingPauseAt = -1;
  m_runDirectory = runDirectory;
  m_running = true;
  m_paused = false;
  m_progress = EngineProgress{};
  m_progress.phase = QStringLiteral("starting");
  setStatus(RunStatus::PreparingData);

  core::TrainingControl* control = m_control.get();
  Observer* observer = m_observer.get();
  const std::string dir = runDirectory.toStdString();
  m_thread = std::thread([config, dir, control, observer] {
    // Every LibTorch object of the run is created, used and destroyed on this thread.
    try {
      core::Trainer trainer(config, dir, observer);
      trainer.run(*control);
      observer->finish(true, {});
    } catch (const std::exception& e) {
      observer->finish(false, e.what());
    } catch (...) {
      observer->finish(false, "training failed with an unknown error");
    }
  });
  return true;
}

void TrainingController::pause() {
  if (!m_running || m_paused) return;
  m_paused = true;
  m_control->setPaused(true);
  setStatus(RunStatus::Paused);
}

void TrainingController::resume() {
  if (!m_running || !m_paused) return;
  m_paused = false;
  m_control->setPaused(false);
  setStatus(RunStatus::Training);
}

void TrainingController::stop() {
  if (!m_running) return;
  m_control->requestStop();
  setStatus(RunStatus::Stopping);
}

void TrainingController::pauseAtStep(qint64 step) {
  // Before start() it applies to the next run.
  if (m_running && m_observer) {
    m_observer->pauseAt = step;
  } else {
    m_pendingPauseAt = step;
  }
}

void TrainingController::checkpointNow() {
  if (m_running) m_control->requestCheckpoint();
}

void TrainingController::setStatus(RunStatus status) {
  if (status == m_status) return;
  m_status = status;
  emit statusChanged(status);
}

void TrainingController::join() {
  if (m_thread.joinable()) m_thread.join();
}

void TrainingController::drain() {
  if (!m_observer) return;
  // One pass over the batch; the progress and the last step are reported once, after it.
  BatchReport batch;
  for (auto& item : m_observer->take()) {
    if (item.end) {
      onEngineThreadEnded(item.ok, item.error);
      continue;
    }
    std::visit(Overloaded{[&](const core::PhaseEvent& e) { onPhase(e, batch); },
                          [&](const core::StepEvent& e) { onStep(e, batch); },
                          [&](const core::EvaluationEvent& e) { onEvaluation(e); },
                          [&](const core::CheckpointEvent& e) { onCheckpoint(e); },
                          [&](const core::MilestoneEvent& e) { onMilestone(e); }},
               item.event);
  }
  if (batch.progressed) emit progressChanged();
  if (batch.lastStep >= 0) emit stepReported(batch.lastStep, batch.lastTotal);
}

void TrainingController::onEngineThreadEnded(bool ok, const std::string& error) {
  join();
  m_running = false;
  m_paused = false;
  if (!ok) {
    emit message({m_progress.done, nowSeconds(), QStringLiteral("error"),
                  QString::fromStdString(error), std::nullopt, true});
  }
  setStatus(endStatus(ok));
  emit finished(m_status, ok ? QString() : QString::fromStdString(error));
}

RunStatus TrainingController::endStatus(bool ok) const {
  if (!ok) return RunStatus::Failed;
  if (m_status == RunStatus::Stopping) return RunStatus::Stopped;
  // Ended without a stop request: finished when every step was trained.
  const bool allStepsDone = m_progress.total > 0 && m_progress.done >= m_progress.total;
  return allStepsDone ? RunStatus::Finished : RunStatus::Stopped;
}

void TrainingController::onPhase(const core::PhaseEvent& e, BatchReport& batch) {
  m_progress.phase = QString::fromStdString(e.phase);
  m_progress.done = e.done;
  m_progress.total = e.total;
  m_progress.doneInBytes = e.unit == core::PhaseUnit::Bytes;
  m_progress.phaseSeconds = e.seconds;
  batch.progressed = true;
}

void TrainingController::onStep(const core::StepEvent& e, BatchReport& batch) {
  if (m_progress.startStep < 0) m_progress.startStep = e.step;
  m_progress.phase = QStringLiteral("training");
  m_progress.doneInBytes = false;
  m_progress.done = e.step;
  m_progress.total = e.totalSteps;
  m_progress.tokensPerSecond = e.tokensPerSecond;
  m_progress.elapsedSeconds = e.elapsedSeconds;
  m_progress.device = QString::fromStdString(e.device);
  m_progress.deviceMemoryBytes = e.deviceMemoryBytes;
  batch.lastStep = e.step;
  batch.lastTotal = e.totalSteps;
  batch.progressed = true;
  if (m_status == RunStatus::PreparingData) setStatus(RunStatus::Training);
}

void TrainingController::onEvaluation(const core::EvaluationEvent& e) {
  emit message({e.step, nowSeconds(), QStringLiteral("evaluation"),
                QStringLiteral("evaluation at step %1: loss %2, accuracy %3")
                    .arg(e.step)
                    .arg(e.loss, 0, 'f', 4)
                    .arg(e.accuracy, 0, 'f', 4),
                std::nullopt});
}

void TrainingController::onCheckpoint(const core::CheckpointEvent& e) {
  emit message({e.step, nowSeconds(), QStringLiteral("checkpoint"),
                QStringLiteral("checkpoint at step %1: %2")
                    .arg(e.step)
                    .arg(QString::fromStdString(e.path.string())),
                std::nullopt});
}

void TrainingController::onMilestone(const core::MilestoneEvent& e) {
  if (e.kind == core::RunEventKind::Paused && !m_paused) {
    m_paused = true;  // a pause the engine thread decided (pauseAtStep)
    setStatus(RunStatus::Paused);
  }
  const bool opened = e.kind == core::RunEventKind::Start || e.kind == core::RunEventKind::Resume;
  if (opened) {
    if (m_status == RunStatus::PreparingData)
      setStatus(m_paused ? RunStatus::Paused : RunStatus::Training);
    if (m_progress.startStep < 0) m_progress.startStep = e.step;
  }
  emit message({e.step, nowSeconds(), QString::fromStdString(core::runEventKindString(e.kind)),
                QString::fromStdString(e.message), e.kind});
  // The engine writes these right after opening the log: readers may open it now.
  if (opened) emit logOpened();
}

}  // namespace attnlab::app
