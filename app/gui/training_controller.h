#pragma once

// Trains one run inside the app. The engine runs on one thread of its own that owns every
// LibTorch object of the run (core::Trainer); this QObject lives on the GUI thread, steers
// the run through core::TrainingControl and receives the engine's typed events in batches:
// the engine appends to a buffer under a mutex and posts one queued drain when the buffer
// goes from empty to non-empty, so the GUI thread handles whole batches, never a signal per
// value. Exceptions stay on the engine thread: a failure arrives as finished(Failed, text).

#include "app/gui/training_session.h"

#include "core/config/run_config.h"
#include "core/train/training_progress.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace attnlab::core {
class TrainingControl;
}

namespace attnlab::app {

class TrainingController : public TrainingSession {
  Q_OBJECT
 public:
  explicit TrainingController(QObject* parent = nullptr);
  /// Stops a run still training (cleanly) and waits for its thread.
  ~TrainingController() override;

  /// False, with a reason, when a run is already training in this window.
  bool start(const core::RunConfig& config, const QString& runDirectory,
             QString* whyNot = nullptr) override;
  bool isRunning() const override { return m_running; }
  bool isPaused() const override { return m_paused; }
  QString runDirectory() const override { return m_runDirectory; }
  RunStatus status() const override { return m_status; }
  const EngineProgress& progress() const override { return m_progress; }
  TrainingCapabilities capabilities() const override { return {true, true}; }

 public slots:
  void pause() override;
  void resume() override;
  /// Finish the current step, checkpoint, close the log.
  void stop() override;
  void checkpointNow() override;
  /// Pause when the engine reports step `step` (decided on the engine thread, so the run
  /// holds exactly there; with train.log_every = 1 that is after that step). -1 clears it.
  /// Called before start(), it applies to the run start() launches.
  void pauseAtStep(qint64 step);

 private:
  class Observer;
  /// What a batch of events changed, reported once after the batch.
  struct BatchReport {
    bool progressed = false;                    ///< a phase or a step moved: progressChanged()
    std::int64_t lastStep = -1, lastTotal = 0;  ///< the batch's last step: stepReported()
  };

  /// Handles every event queued since the previous drain, in order (posted by the Observer).
  void drain();
  /// The engine thread returned: failed (with `error`), stopped or finished.
  void onEngineThreadEnded(bool ok, const std::string& error);
  RunStatus endStatus(bool ok) const;
  void onPhase(const core::PhaseEvent& event, BatchReport& batch);
  void onStep(const core::StepEvent& event, BatchReport& batch);
  void onEvaluation(const core::EvaluationEvent& event);
  void onCheckpoint(const core::CheckpointEvent& event);
  /// Start and Resume also mean the run log is open: logOpened() follows the message.
  void onMilestone(const core::MilestoneEvent& event);
  void setStatus(RunStatus status);
  void join();

  std::unique_ptr<core::TrainingControl> m_control;
  std::unique_ptr<Observer> m_observer;
  std::thread m_thread;
  bool m_running = false;
  bool m_paused = false;
  qint64 m_pendingPauseAt = -1;
  QString m_runDirectory;
  RunStatus m_status = RunStatus::Incomplete;
  EngineProgress m_progress;
};

}  // namespace attnlab::app
