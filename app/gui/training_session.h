#pragma once

// What the window knows of a run it trains, whoever trains it: TrainingController (the
// engine on a thread of this process) and DistributedRunLauncher (attnlab-cli's processes)
// implement it, so the window holds one pointer and never asks which back-end it has. A
// QObject without widgets: a test drives either back-end through this interface alone.
//
// A new back-end (a remote machine, a job queue) implements start, stop and the queries,
// says in capabilities() what else it offers, and emits the signals below in this order:
// statusChanged(PreparingData), progressChanged while it prepares, logOpened once the run
// log may be read, stepReported / message while it trains, finished exactly once.

#include "app/gui/run_session.h"

#include <QObject>
#include <QString>

#include <cstdint>

namespace attnlab::core {
struct RunConfig;
}

namespace attnlab::app {

/// What the status bar shows about the engine.
struct EngineProgress {
  QString phase;  ///< "preparing data: tokenizer", "training", ...
  std::int64_t done = 0, total = 0;
  bool doneInBytes = false;  ///< done and total count bytes of text (data preparation)
  double phaseSeconds = 0;   ///< since the phase began (rate and ETA of a data phase)
  double tokensPerSecond = 0;
  double elapsedSeconds = 0;    ///< of training in this process
  std::int64_t startStep = -1;  ///< first step this process trained (for the ETA)
  /// Processes training the run: 1 here, N for a launch of attnlab-cli --nproc-per-node N.
  int processes = 1;
  QString device;                      ///< "cpu", "cuda:0" (empty until the first interval)
  std::int64_t deviceMemoryBytes = 0;  ///< GPU memory the run holds, 0 on the CPU
};

/// The controls a back-end offers beyond start and stop (the Run menu enables by them).
struct TrainingCapabilities {
  bool pause = false;          ///< pause() / resume() hold the run at a step boundary
  bool checkpointNow = false;  ///< checkpointNow() writes one at the next step boundary
};

class TrainingSession : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  ~TrainingSession() override;

  /// Starts training `config` in `runDirectory` (resuming when it holds a checkpoint). False,
  /// with a reason, when this session trains a run already or cannot start one.
  virtual bool start(const core::RunConfig& config, const QString& runDirectory,
                     QString* whyNot = nullptr) = 0;
  virtual bool isRunning() const = 0;
  virtual bool isPaused() const { return false; }
  virtual RunStatus status() const = 0;
  virtual QString runDirectory() const = 0;
  virtual const EngineProgress& progress() const = 0;
  virtual TrainingCapabilities capabilities() const = 0;

 public slots:
  /// Finish the current step, checkpoint, close the log; finished(Stopped, ...) follows.
  virtual void stop() = 0;
  /// Without the capability these do nothing.
  virtual void pause() {}
  virtual void resume() {}
  virtual void checkpointNow() {}

 signals:
  void statusChanged(attnlab::app::RunStatus status);
  /// Phase or step progress changed.
  void progressChanged();
  /// A step was trained; the run log has (or will within a flush) its rows.
  void stepReported(qint64 step, qint64 total);
  /// The run log is open for writing: readers may open it now (a resumed log has been cut
  /// back to its checkpoint by then).
  void logOpened();
  /// A line for the console (milestones, evaluations, checkpoints, errors, output).
  void message(const attnlab::app::RunMessage& message);
  /// The run ended: Finished, Stopped or Failed; `error` is the failure's text (empty
  /// otherwise). Emitted once per start().
  void finished(attnlab::app::RunStatus status, const QString& error);
};

}  // namespace attnlab::app
