#pragma once

// Which run this window trains, and with which back-end. The window trains one run at a time:
// inside the app (TrainingController) for one process, through attnlab-cli's processes
// (DistributedRunLauncher) for more. The coordinator chooses, opens the run for training,
// hears only the back-end training now, and tells the window what happened in signals that
// name the run; it shows nothing itself (no widgets), so a test drives it without a window.

#include "app/gui/run_session.h"
#include "app/gui/training_session.h"

#include <QObject>
#include <QPointer>
#include <QString>

namespace attnlab::core {
struct RunConfig;
}

namespace attnlab::app {

class AppSettings;
class DistributedRunLauncher;
class OpenedRuns;
class TrainingController;

class TrainingCoordinator : public QObject {
  Q_OBJECT
 public:
  TrainingCoordinator(OpenedRuns* runs, AppSettings* settings, QObject* parent = nullptr);

  /// Trains `config` in `directory` (resumes when it holds a checkpoint): inside the app for
  /// 1 process, else data-parallel in `processes` processes of attnlab-cli (followed like any
  /// run, shown as one). False, after startFailed(), when a run trains already or the
  /// back-end cannot start.
  bool start(const core::RunConfig& config, const QString& directory, int processes = 1);
  /// Resumes a stopped run from its config.toml, in as many processes as this window last
  /// trained it in, else as its log says its latest start or resume used (the global batch
  /// stays the same).
  bool resume(RunSession* run);
  /// True while this window trains a run, here or through attnlab-cli processes.
  bool isTraining() const;
  /// The back-end training now, null when none does; and the run it trains.
  TrainingSession* session() const { return m_session; }
  RunSession* run() const { return m_run; }
  TrainingController* inProcess() const { return m_training; }
  DistributedRunLauncher* launcher() const { return m_launcher; }

 public slots:
  void stop();
  /// Stops `run` when it is the run trained here (the sidebar's Stop).
  void stopRun(attnlab::app::RunSession* run);
  void pause();
  /// Resumes the paused run, else resumes `fallback` (the run selected) from its checkpoint.
  void resumeOr(attnlab::app::RunSession* fallback);
  void checkpointNow();

 signals:
  /// `run` began training (selected, its progress follows).
  void started(attnlab::app::RunSession* run);
  void startFailed(const QString& error);
  /// What the status bar shows while `run` trains.
  void progress(attnlab::app::RunSession* run, const attnlab::app::EngineProgress& progress,
                attnlab::app::RunStatus status);
  /// A console line of the run training now.
  void message(attnlab::app::RunSession* run, const attnlab::app::RunMessage& message);
  /// The run ended (Finished, Stopped or Failed, with the failure's text).
  void ended(attnlab::app::RunSession* run, attnlab::app::RunStatus status, const QString& error);
  /// Training began, paused, ended...: the Run menu's actions may change.
  void stateChanged();

 private:
  void wire(TrainingSession* session);
  /// The run `session` trains, when it is the back-end training now.
  RunSession* runOf(const TrainingSession* session) const;
  void finish(RunStatus status, const QString& error);

  OpenedRuns* m_runs;
  AppSettings* m_settings;
  TrainingController* m_training;      // trains in this process
  DistributedRunLauncher* m_launcher;  // trains in attnlab-cli's processes
  TrainingSession* m_session = nullptr;
  QPointer<RunSession> m_run;
};

}  // namespace attnlab::app
