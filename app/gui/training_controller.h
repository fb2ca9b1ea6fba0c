#pragma once

// Trains one run inside the app. The engine runs on one thread of its own that owns every
// LibTorch object of the run (core::Trainer); this QObject lives on the GUI thread, steers
// the run through core::TrainingControl and receives the engine's typed events in batches:
// the engine appends to a buffer under a mutex and posts one queued drain when the buffer
// goes from empty to non-empty, so the GUI thread handles whole batches, never a signal per
// value. Exceptions stay on the engine thread: a failure arrives as finished(false, text).

#include "app/gui/run_session.h"

#include "core/config/run_config.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace attnlab::core {
class TrainingControl;
}

namespace attnlab::app {

/// What the status bar shows about the engine.
struct EngineProgress {
  QString phase;  ///< "preparing data: tokenizer", "training", ...
  std::int64_t done = 0, total = 0;
  double tokensPerSecond = 0;
  double elapsedSeconds = 0;    ///< of training in this process
  std::int64_t startStep = -1;  ///< first step this process trained (for the ETA)
  /// Processes training the run: 1 here, N for a launch of attnlab-cli --nproc-per-node N.
  int processes = 1;
  QString device;                      ///< "cpu", "cuda:0" (empty until the first interval)
  std::int64_t deviceMemoryBytes = 0;  ///< GPU memory the run holds, 0 on the CPU
};

class TrainingController : public QObject {
  Q_OBJECT
 public:
  explicit TrainingController(QObject* parent = nullptr);
  /// Stops a run still training (cleanly) and waits for its thread.
  ~TrainingController() override;

  /// Starts training `config` in `runDirectory` (resuming when it holds a checkpoint).
  /// False, with a reason, when a run is already training in this window.
  bool start(const core::RunConfig& config, const QString& runDirectory, QString* whyNot = nullptr);
  bool isRunning() const { return m_running; }
  bool isPaused() const { return m_paused; }
  QString runDirectory() const { return m_runDirectory; }
  RunStatus status() const { return m_status; }
  const EngineProgress& progress() const { return m_progress; }

 public slots:
  void pause();
  void resume();
  /// Finish the current step, checkpoint, close the log.
  void stop();
  void checkpointNow();
  /// Pause when the engine reports step `step` (decided on the engine thread, so the run
  /// holds exactly there; with train.log_every = 1 that is after that step). -1 clears it.
  /// Called before start(), it applies to the run start() launches.
  void pauseAtStep(qint64 step);

 signals:
  void statusChanged(attnlab::app::RunStatus status);
  /// Phase or step progress changed (once per drained batch).
  void progressChanged();
  /// The engine reported a step; the run log has (or will within a flush) its rows.
  void stepReported(qint64 step, qint64 total);
  /// A line for the console (milestones, checkpoints, errors).
  void message(const attnlab::app::RunMessage& message);
  /// The engine thread ended: `ok` false with the error text on failure.
  void finished(bool ok, const QString& error);

 private:
  class Observer;
  void drain();
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
