#pragma once

// Trains one run data-parallel in several processes on this machine, from the app: it
// starts `attnlab-cli train --nproc-per-node N` (the attnlab-cli next to the app's own
// executable) as a child process and turns its output into what TrainingController gives
// for a run trained in this process (the TrainingSession interface): status, progress,
// console lines, the end. It offers neither pause nor checkpoint-now. The run's
// data reaches the views the usual way, through its RunWatcher reading rank 0's log; this
// QObject only steers the child and reads its output (no widgets, no engine objects).

#include "app/gui/training_session.h"

#include "core/config/run_config.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QString>

#include <memory>

class QJsonObject;
class QTemporaryDir;

namespace attnlab::app {

class DistributedRunLauncher : public TrainingSession {
  Q_OBJECT
 public:
  explicit DistributedRunLauncher(QObject* parent = nullptr);
  /// Stops a launch still running (cleanly, as Stop does) and waits for it, bounded.
  ~DistributedRunLauncher() override;

  /// attnlab-cli in the folder of this program (QCoreApplication::applicationDirPath()):
  /// the installed pair, or the build's bin/ folder.
  static QString defaultCliPath();
  /// Another attnlab-cli (tests); empty restores the default.
  void setCliPath(const QString& path);
  QString cliPath() const;

  /// Starts training `config` in `runDirectory` in `processes` (>= 2) worker processes,
  /// resuming when the directory holds a checkpoint. False, with a reason, when a launch is
  /// running already or the child cannot be prepared; a child that fails later ends with
  /// finished(Failed, ...).
  bool start(const core::RunConfig& config, const QString& runDirectory, int processes,
             QString* whyNot = nullptr);
  /// The same in setProcesses()'s number of processes (the interface's start).
  bool start(const core::RunConfig& config, const QString& runDirectory,
             QString* whyNot = nullptr) override;
  /// The processes the next start() without a number trains in (default 2).
  void setProcesses(int processes) { m_nextProcesses = processes; }
  bool isRunning() const override { return m_running; }
  RunStatus status() const override { return m_status; }
  QString runDirectory() const override { return m_runDirectory; }
  TrainingCapabilities capabilities() const override { return {}; }
  int processes() const { return m_processes; }
  /// The c10d master port of the current (or last) launch.
  int masterPort() const { return m_port; }
  /// The port the next start() tries first (once; 0, the default: pickFreePort()).
  void setMasterPort(int port) { m_requestedPort = port; }
  /// The launcher process' id (0 when none runs).
  qint64 processId() const;
  /// What rank 0 last reported (its progress lines).
  const EngineProgress& progress() const override { return m_progress; }

  /// A TCP port nobody listens on at 127.0.0.1 now (bound to port 0 and closed again): the
  /// launch's c10d master port. Another program may take it before rank 0 does; start()
  /// retries with a new port when rank 0 reports "port in use".
  static int pickFreePort();

 public slots:
  /// SIGTERM to the launcher, which passes it on: the workers agree to stop after the same
  /// step, rank 0 writes a checkpoint and closes the log, the launcher exits 130.
  void stop() override;

  // Signals (TrainingSession): stepReported is rank 0's step; logOpened comes with rank 0's
  // first line after data preparation; message carries each line of the launcher's output
  // ("[rank r] ..." from a worker, or its own; kind "error" for error lines, else
  // "attnlab-cli"); finished's error is the failure's last error line (the launcher names
  // the rank that failed).

 private:
  void emitLine(const QString& line, bool standardError);
  void launch();
  void readLines(QProcess::ProcessChannel channel);
  void handleLine(const QString& line, bool standardError);
  /// One object of the progress channel (a rank's event, or a worker's wrapped output).
  void handleEvent(const QJsonObject& event);
  void rankZeroStep(const QJsonObject& event);
  void markLogOpened();
  /// Remembers error lines for the failure's message, and a master port found taken.
  void noteOutput(const QString& line, bool standardError);
  void onFinished(int exitCode, QProcess::ExitStatus exitStatus);
  void onErrorOccurred(QProcess::ProcessError error);
  void end(RunStatus status, const QString& error);
  void setStatus(RunStatus status);

  QString m_cliPath;
  QProcess* m_process = nullptr;
  std::unique_ptr<QTemporaryDir> m_configDir;
  QString m_configFile;
  QString m_runDirectory;
  int m_processes = 0;
  int m_nextProcesses = 2;
  int m_port = 0;
  int m_requestedPort = 0;
  int m_portAttempts = 0;
  bool m_running = false;
  bool m_stopRequested = false;
  bool m_logOpened = false;
  bool m_portInUse = false;
  RunStatus m_status = RunStatus::Incomplete;
  EngineProgress m_progress;
  QElapsedTimer m_sinceFirstStep;
  QString m_lastStandardError;
  QString m_lastErrorLine;
  QString m_firstRankError;
};

}  // namespace attnlab::app
