#include "app/gui/distributed_run_launcher.h"

#include "app/cli/progress_events.h"
#include "core/config/config_loader.h"
#include "core/runlog/run_event_kind.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QTemporaryDir>

#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace attnlab::app {

namespace {

// Attempts at a master port before a launch whose rank 0 keeps finding it taken fails.
constexpr int kPortAttempts = 3;
// How long the destructor waits for a stopped launch (rank 0 checkpoints first).
constexpr int kStopWaitMs = 60000;

// torchrun's variables (and the launcher's marker): a worker reads them. The app is never a
// worker, but if it was started from a shell that had them, the launcher would refuse to
// start ("already a worker") or join someone else's group.
const char* const kWorkerVariables[] = {"RANK",
                                        "LOCAL_RANK",
                                        "WORLD_SIZE",
                                        "LOCAL_WORLD_SIZE",
                                        "MASTER_ADDR",
                                        "MASTER_PORT",
                                        "ATTNLAB_LAUNCHER",
                                        "TORCHELASTIC_USE_AGENT_STORE",
                                        "TORCHELASTIC_RESTART_COUNT"};

}  // namespace

DistributedRunLauncher::DistributedRunLauncher(QObject* parent)
    : TrainingSession(parent), m_cliPath(defaultCliPath()) {}

DistributedRunLauncher::~DistributedRunLauncher() {
  if (m_process == nullptr || m_process->state() == QProcess::NotRunning) return;
  // The owner is going away: nobody is left to hear finished().
  m_process->disconnect(this);
  // A second SIGTERM makes the workers exit at once without their checkpoint: one only.
  if (!m_stopRequested) m_process->terminate();
  if (!m_process->waitForFinished(kStopWaitMs)) {
    // Its workers get SIGTERM from the kernel when it dies (PR_SET_PDEATHSIG, set by it).
    m_process->kill();
    m_process->waitForFinished(5000);
  }
}

QString DistributedRunLauncher::defaultCliPath() {
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("attnlab-cli"));
}

void DistributedRunLauncher::setCliPath(const QString& path) {
  m_cliPath = path.isEmpty() ? defaultCliPath() : path;
}

QString DistributedRunLauncher::cliPath() const {
  return m_cliPath;
}

qint64 DistributedRunLauncher::processId() const {
  return m_process != nullptr ? m_process->processId() : 0;
}

int DistributedRunLauncher::pickFreePort() {
  // Every interface, not only loopback: rank 0's TCPStore listens on all of them.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  address.sin_port = 0;
  socklen_t size = sizeof address;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0)
    port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

bool DistributedRunLauncher::start(const core::RunConfig& config, const QString& runDirectory,
                                   QString* whyNot) {
  return start(config, runDirectory, m_nextProcesses, whyNot);
}

bool DistributedRunLauncher::start(const core::RunConfig& config, const QString& runDirectory,
                                   int processes, QString* whyNot) {
  const auto refuse = [whyNot](const QString& why) {
    if (whyNot) *whyNot = why;
    return false;
  };
  if (m_running)
    return refuse(QStringLiteral("%1 is still training in %2 processes; stop it first")
                      .arg(m_runDirectory)
                      .arg(m_processes));
  if (processes < 2)
    return refuse(QStringLiteral("a data-parallel launch takes at least 2 processes"));
  const QFileInfo cli(m_cliPath);
  if (!cli.isFile() || !cli.isExecutable())
    return refuse(QStringLiteral("cannot train in %1 processes: attnlab-cli, which starts them, "
                                 "is not next to this program (%2)")
                      .arg(processes)
                      .arg(QDir::toNativeSeparators(m_cliPath)));
  // The workers read the dialog's configuration from a file of their own: one TOML that
  // every rank loads (rank 0 then writes the run's config.toml, as a one-process run does).
  auto configDir = std::make_unique<QTemporaryDir>();
  if (!configDir->isValid())
    return refuse(QStringLiteral("cannot create a temporary folder for the launch: %1")
                      .arg(configDir->errorString()));
  const QString configFile = configDir->filePath(QStringLiteral("launch.toml"));
  QFile file(configFile);
  const QByteArray toml = QByteArray::fromStdString(core::toToml(config));
  if (!file.open(QIODevice::WriteOnly) || file.write(toml) != toml.size())
    return refuse(QStringLiteral("cannot write %1: %2").arg(configFile, file.errorString()));
  file.close();

  m_configDir = std::move(configDir);
  m_configFile = configFile;
  m_runDirectory = runDirectory;
  m_processes = processes;
  m_port = m_requestedPort > 0 ? m_requestedPort : pickFreePort();
  m_requestedPort = 0;
  m_portAttempts = 1;
  m_running = true;
  m_stopRequested = false;
  m_logOpened = false;
  m_progress = EngineProgress{};
  m_progress.phase = QStringLiteral("starting %1 processes").arg(processes);
  m_progress.processes = processes;
  setStatus(RunStatus::PreparingData);
  launch();
  return true;
}

void DistributedRunLauncher::launch() {
  if (m_process != nullptr) {
    m_process->disconnect(this);
    m_process->deleteLater();
  }
  m_portInUse = false;
  m_lastStandardError.clear();
  m_lastErrorLine.clear();
  m_firstRankError.clear();
  m_process = new QProcess(this);
  m_process->setProgram(m_cliPath);
  m_process->setArguments({QStringLiteral("train"), QStringLiteral("--config"), m_configFile,
                           QStringLiteral("--run-dir"), m_runDirectory,
                           QStringLiteral("--progress"), QStringLiteral("jsonl"),
                           QStringLiteral("--nproc-per-node"), QString::number(m_processes),
                           QStringLiteral("--master-port"), QString::number(m_port)});
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  for (const char* name : kWorkerVariables) environment.remove(QString::fromLatin1(name));
  m_process->setProcessEnvironment(environment);
  // The launcher passes a SIGTERM on to its workers (docs/distributed.md), and a second one
  // ends them without a checkpoint. So it gets exactly one per stop: it leaves the app's
  // process group (a Ctrl-C in the app's terminal would be a second), and the death of the
  // app, however it dies, is the one (PR_SET_PDEATHSIG): no launch trains on unwatched.
  const pid_t app = ::getpid();
  m_process->setChildProcessModifier([app] {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != app) ::raise(SIGTERM);  // the app died before prctl
  });
  connect(m_process, &QProcess::readyReadStandardOutput, this,
          [this] { readLines(QProcess::StandardOutput); });
  connect(m_process, &QProcess::readyReadStandardError, this,
          [this] { readLines(QProcess::StandardError); });
  connect(m_process, &QProcess::finished, this, &DistributedRunLauncher::onFinished);
  connect(m_process, &QProcess::errorOccurred, this, &DistributedRunLauncher::onErrorOccurred);
  m_process->start();
}

void DistributedRunLauncher::stop() {
  if (!m_running || m_stopRequested) return;
  m_stopRequested = true;
  setStatus(RunStatus::Stopping);
  // SIGTERM: the launcher passes it on, the workers finish their step and agree to stop,
  // rank 0 writes a checkpoint and closes the log, and the launcher exits 130.
  m_process->terminate();
}

void DistributedRunLauncher::readLines(QProcess::ProcessChannel channel) {
  if (m_process == nullptr) return;
  m_process->setReadChannel(channel);
  while (m_process->canReadLine()) {
    QString line = QString::fromUtf8(m_process->readLine());
    while (line.endsWith(QLatin1Char('\n')) || line.endsWith(QLatin1Char('\r'))) line.chop(1);
    handleLine(line, channel == QProcess::StandardError);
  }
}

void DistributedRunLauncher::handleLine(const QString& line, bool standardError) {
  if (line.trimmed().isEmpty()) return;
  // stdout carries the launch's progress channel (attnlab-cli train --progress jsonl): one
  // JSON object per line. stderr carries the launcher's own lines (its errors).
  if (!standardError) {
    const QJsonDocument document = QJsonDocument::fromJson(line.toUtf8());
    if (document.isObject()) {
      handleEvent(document.object());
      return;
    }
  }
  noteOutput(line, standardError);
  emitLine(line, standardError);
}

void DistributedRunLauncher::noteOutput(const QString& line, bool standardError) {
  if (standardError) m_lastStandardError = line;
  if (line.contains(QStringLiteral("error"))) m_lastErrorLine = line;
  if (line.contains(QStringLiteral("port in use"))) m_portInUse = true;
}

void DistributedRunLauncher::handleEvent(const QJsonObject& event) {
  namespace names = progress_events;
  const int rank = event.value(QStringLiteral("rank")).toInt(-1);
  const QString name = event.value(QStringLiteral("event")).toString();
  const QString text = event.value(QStringLiteral("text")).toString();
  const QString shown = rank >= 0 ? QStringLiteral("[rank %1] %2").arg(rank).arg(text) : text;
  const bool output = name == QLatin1String(names::kOutput);
  if (output) {
    // A worker's own line (its stderr): the rank whose error came first caused the others'
    // ("a peer has probably stopped").
    noteOutput(shown, false);
    if (m_firstRankError.isEmpty() && text.contains(QStringLiteral("error")) &&
        !text.contains(QStringLiteral("peer has probably stopped")))
      m_firstRankError = shown;
  }
  // The line goes out last, once a step it reports is the run's step (the console's column).
  const auto lineOut = qScopeGuard([&] { emitLine(shown, output); });
  if (rank != 0) return;
  if (name == QLatin1String(names::kStep)) {
    rankZeroStep(event);
  } else if (name == QLatin1String(names::kMilestone)) {
    // Rank 0 reports start or resume (and, for a launch, "distributed") right after opening
    // the log for writing.
    using core::RunEventKind;
    const auto kind =
        core::runEventKindFromName(event.value(QStringLiteral("kind")).toString().toStdString());
    if (kind == RunEventKind::Start || kind == RunEventKind::Resume ||
        kind == RunEventKind::Distributed)
      markLogOpened();
  } else if (name == QLatin1String(names::kPhase) && !m_logOpened) {
    // A worker's data phase: its bytes and rate when the phase counts them (--progress jsonl).
    m_progress.phase = event.value(QStringLiteral("phase")).toString();
    m_progress.doneInBytes = event.contains(QStringLiteral("mb_per_s"));
    m_progress.done = m_progress.doneInBytes ? event.value(QStringLiteral("done")).toInteger() : 0;
    m_progress.total =
        m_progress.doneInBytes ? event.value(QStringLiteral("total")).toInteger() : 0;
    m_progress.phaseSeconds = event.value(QStringLiteral("seconds")).toDouble();
    emit progressChanged();
  }
}

void DistributedRunLauncher::markLogOpened() {
  if (m_logOpened) return;
  m_logOpened = true;
  if (m_status == RunStatus::PreparingData) setStatus(RunStatus::Training);
  emit logOpened();
}

void DistributedRunLauncher::rankZeroStep(const QJsonObject& event) {
  // The first step is reported after rank 0 opened the log (and logged its start).
  markLogOpened();
  const qint64 done = event.value(QStringLiteral("step")).toInteger();
  const qint64 total = event.value(QStringLiteral("total")).toInteger();
  if (m_progress.startStep < 0) {
    m_progress.startStep = done;
    m_sinceFirstStep.start();
  }
  m_progress.phase = QStringLiteral("training");
  m_progress.done = done;
  m_progress.total = total;
  m_progress.tokensPerSecond = event.value(QStringLiteral("tokens_per_second")).toDouble();
  m_progress.device = event.value(QStringLiteral("device")).toString();
  m_progress.deviceMemoryBytes = event.value(QStringLiteral("device_memory_bytes")).toInteger();
  m_progress.elapsedSeconds = static_cast<double>(m_sinceFirstStep.elapsed()) / 1000.0;
  emit progressChanged();
  emit stepReported(done, total);
}

void DistributedRunLauncher::onErrorOccurred(QProcess::ProcessError error) {
  // A child that started reports its end through finished(); one that never started does not.
  if (error != QProcess::FailedToStart || !m_running) return;
  end(RunStatus::Failed, QStringLiteral("cannot start %1: %2")
                             .arg(QDir::toNativeSeparators(m_cliPath), m_process->errorString()));
}

void DistributedRunLauncher::onFinished(int exitCode, QProcess::ExitStatus exitStatus) {
  // What arrived after the last readyRead, and a last line without its newline.
  readLines(QProcess::StandardOutput);
  readLines(QProcess::StandardError);
  for (const auto channel : {QProcess::StandardOutput, QProcess::StandardError}) {
    m_process->setReadChannel(channel);
    const QString rest = QString::fromUtf8(m_process->readAll()).trimmed();
    if (!rest.isEmpty()) handleLine(rest, channel == QProcess::StandardError);
  }
  const bool crashed = exitStatus == QProcess::CrashExit;
  if (!crashed && exitCode == 0) {
    end(RunStatus::Finished, {});
    return;
  }
  // Stopped: what Stop asked for (also when a worker was still starting and died of the
  // signal), or a Ctrl-C that reached the workers some other way (exit 130).
  if (m_stopRequested || (!crashed && exitCode == 130)) {
    end(RunStatus::Stopped, {});
    return;
  }
  // Another program took the port between pickFreePort() and rank 0's bind: a new port.
  if (!crashed && m_portInUse && !m_logOpened && m_portAttempts < kPortAttempts) {
    const int previous = m_port;
    m_port = pickFreePort();
    ++m_portAttempts;
    emitLine(QStringLiteral("master port %1 is in use; starting again on port %2")
                 .arg(previous)
                 .arg(m_port),
             false);
    launch();
    return;
  }
  QString error =
      m_lastStandardError.contains(QStringLiteral("error")) ? m_lastStandardError : m_lastErrorLine;
  if (error.isEmpty())
    error = crashed ? QStringLiteral("attnlab-cli train ended abnormally (%1)")
                          .arg(m_process->errorString())
                    : QStringLiteral("attnlab-cli train exited with status %1").arg(exitCode);
  // The launcher names the rank it saw end first, which can be one that only lost its peer
  // (its error says so); the first rank to report an error of its own is the cause.
  if (!m_firstRankError.isEmpty() && !error.contains(m_firstRankError.section(QLatin1Char(' '), 2)))
    error += QStringLiteral("\nfirst error: %1").arg(m_firstRankError);
  end(RunStatus::Failed, error);
}

void DistributedRunLauncher::emitLine(const QString& line, bool standardError) {
  const bool error = line.contains(QStringLiteral("error")) ||
                     (standardError && line.contains(QStringLiteral("failed")));
  const double now = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
  emit message({m_progress.done, now,
                error ? QStringLiteral("error") : QStringLiteral("attnlab-cli"), line, std::nullopt,
                error});
}

void DistributedRunLauncher::end(RunStatus status, const QString& error) {
  m_running = false;
  m_configDir.reset();
  setStatus(status);
  emit finished(status, error);
}

void DistributedRunLauncher::setStatus(RunStatus status) {
  if (status == m_status) return;
  m_status = status;
  emit statusChanged(status);
}

}  // namespace attnlab::app
