#include "app/gui/training_coordinator.h"

#include "app/gui/app_settings.h"
#include "app/gui/distributed_run_launcher.h"
#include "app/gui/opened_runs.h"
#include "app/gui/training_controller.h"
#include "core/config/config_loader.h"

#include <QDir>

#include <algorithm>

namespace attnlab::app {

TrainingCoordinator::TrainingCoordinator(OpenedRuns* runs, AppSettings* settings, QObject* parent)
    : QObject(parent),
      m_runs(runs),
      m_settings(settings),
      m_training(new TrainingController(this)),
      m_launcher(new DistributedRunLauncher(this)) {
  wire(m_training);
  wire(m_launcher);
}

RunSession* TrainingCoordinator::runOf(const TrainingSession* session) const {
  return session == m_session ? m_run.data() : nullptr;
}

void TrainingCoordinator::wire(TrainingSession* session) {
  // Both back-ends are wired the same way; only the one training now is heard.
  connect(session, &TrainingSession::statusChanged, this, [this, session](RunStatus status) {
    RunSession* run = runOf(session);
    if (run) run->setStatus(status);
    // A paused run reports no steps, so the bar would go on saying "training".
    if (run && isActiveHere(status)) emit progress(run, session->progress(), status);
    emit stateChanged();
  });
  connect(session, &TrainingSession::progressChanged, this, [this, session] {
    if (RunSession* run = runOf(session))
      emit progress(run, session->progress(), session->status());
  });
  connect(session, &TrainingSession::stepReported, this,
          [this, session](qint64 step, qint64 total) {
            RunSession* run = runOf(session);
            if (!run) return;
            run->setLiveStep(step, total);
            m_runs->pollNow(run);  // the rows are in the log within a flush
          });
  // The watcher waits for this before it reads: a resumed log must not be read before the
  // writer has reopened it (and cut it back to the checkpoint).
  connect(session, &TrainingSession::logOpened, this, [this, session] {
    if (RunSession* run = runOf(session)) m_runs->writerOpened(run);
  });
  connect(session, &TrainingSession::message, this, [this, session](const RunMessage& m) {
    if (RunSession* run = runOf(session)) emit message(run, m);
  });
  connect(session, &TrainingSession::finished, this,
          [this, session](RunStatus status, const QString& error) {
            if (session == m_session) finish(status, error);
          });
}

void TrainingCoordinator::finish(RunStatus status, const QString& error) {
  RunSession* run = m_run;
  if (run) {
    run->markMessagesShownUntilNow();
    m_runs->setTrainingHere(run, false);
    m_runs->pollNow(run);
  }
  m_session = nullptr;
  m_run = nullptr;
  emit ended(run, status, error);
  emit stateChanged();
}

bool TrainingCoordinator::isTraining() const {
  return m_session != nullptr && m_session->isRunning();
}

bool TrainingCoordinator::start(const core::RunConfig& config, const QString& requested,
                                int processes) {
  const QString directory = requested;  // a copy: it may name a session closed below
  if (isTraining()) {
    emit startFailed(QStringLiteral("%1 is still training; stop it before starting another run "
                                    "(the app trains one run at a time so the engine keeps both "
                                    "cores)")
                         .arg(m_session->runDirectory()));
    return false;
  }
  QDir().mkpath(directory);
  // A run already open here is closed and opened again for training: its reader must let go
  // of the log before the engine opens it for writing (HDF5 refuses otherwise), and a
  // resumed log is cut back to the checkpoint, so the views read it again from the start.
  if (RunSession* open = m_runs->find(directory)) m_runs->close(open);
  RunSession* run = m_runs->open(directory, /*expectTraining=*/true);
  if (run == nullptr) return false;
  // One process trains inside the app; more are attnlab-cli's, whose rank 0 writes the log
  // that reaches the views through the run's watcher as for any run.
  TrainingSession* session = m_training;
  if (processes > 1) {
    m_launcher->setProcesses(processes);
    session = m_launcher;
  }
  m_session = session;
  m_run = run;
  run->setProcesses(std::max(processes, 1));
  run->setStatus(RunStatus::PreparingData);
  QString whyNot;
  if (!session->start(config, run->directory(), &whyNot)) {
    m_session = nullptr;
    m_run = nullptr;
    run->setProcesses(1);
    run->setStatus(RunStatus::Failed);
    m_runs->setTrainingHere(run, false);
    emit startFailed(whyNot);
    return false;
  }
  m_settings->addRecentRun(run->directory());
  emit started(run);
  emit progress(run, session->progress(), session->status());
  emit stateChanged();
  return true;
}

bool TrainingCoordinator::resume(RunSession* run) {
  if (run == nullptr) return false;
  const QString configPath = QDir(run->directory()).filePath(QStringLiteral("config.toml"));
  try {
    const core::RunConfig config = core::loadRunConfig(configPath.toStdString());
    // The same number of processes keeps the run's global batch (and its data order): the
    // number this window launched it in, else the number its log records.
    const int processes = run->processes() > 1 ? run->processes() : run->recordedProcesses();
    return start(config, run->directory(), processes);
  } catch (const std::exception& e) {
    emit startFailed(
        QStringLiteral("Cannot resume %1: %2").arg(run->name(), QString::fromStdString(e.what())));
    return false;
  }
}

void TrainingCoordinator::stop() {
  if (isTraining()) m_session->stop();
}

void TrainingCoordinator::stopRun(RunSession* run) {
  if (run == m_run) stop();
}

void TrainingCoordinator::pause() {
  if (m_session) m_session->pause();
}

void TrainingCoordinator::resumeOr(RunSession* fallback) {
  if (isTraining())
    m_session->resume();
  else if (fallback)
    resume(fallback);
}

void TrainingCoordinator::checkpointNow() {
  if (m_session) m_session->checkpointNow();
}

}  // namespace attnlab::app
