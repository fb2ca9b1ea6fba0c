#include "app/gui/report_export_controller.h"

#include "app/gui/jobs/job_runner.h"
#include "core/errors/error.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>

#include <algorithm>

namespace attnlab::app {

namespace {

/// One export as its job's thread runs it.
struct CliExport {
  QString cli;
  QStringList args;
  QString outDir, partDir;
  QString noun;     ///< "report" or "model"
  QString command;  ///< "export" or "export-model"
};

/// The child's last lines say what and where (attnlab-cli: error: ...).
std::string failureOf(const CliExport& e, const QString& output, int exitCode) {
  const QStringList lines = output.trimmed().split(QLatin1Char('\n'));
  if (lines.isEmpty() || lines.back().isEmpty())
    return QStringLiteral("attnlab-cli %1 stopped (exit %2)")
        .arg(e.command)
        .arg(exitCode)
        .toStdString();
  return lines.mid(std::max<qsizetype>(0, lines.size() - 3)).join(QLatin1Char('\n')).toStdString();
}

/// On the job's thread: runs attnlab-cli, hands its lines on as progress, kills it on a
/// cancel, and renames the complete bundle into place. QProcess without an event loop: its
/// waitFor functions poll the pipes.
QString runCliExport(const CliExport& e, const JobControl& control) {
  QProcess child;
  child.setProcessChannelMode(QProcess::MergedChannels);
  QString output;
  const auto readLines = [&] {
    while (child.canReadLine()) {
      const QString line = QString::fromUtf8(child.readLine()).trimmed();
      output += line + QLatin1Char('\n');
      if (!line.isEmpty()) control.progress(line.toStdString(), 0, 0);
    }
  };
  const auto dropPart = [&] { QDir(e.partDir).removeRecursively(); };
  const std::string cancelled = "nothing was written to " + e.outDir.toStdString();
  if (control.cancelled()) throw Cancelled("cancelled", cancelled);
  child.start(e.cli, e.args);
  if (!child.waitForStarted(30000))
    throw DataError(e.cli.toStdString(), "cannot start: " + child.errorString().toStdString());
  while (child.state() != QProcess::NotRunning) {
    if (control.cancelled()) {
      child.kill();
      child.waitForFinished(3000);
      dropPart();
      throw Cancelled("cancelled", cancelled);
    }
    child.waitForReadyRead(100);
    readLines();
  }
  readLines();
  output += QString::fromUtf8(child.readAll());
  if (child.exitStatus() != QProcess::NormalExit || child.exitCode() != 0) {
    dropPart();
    throw DataError("", failureOf(e, output, child.exitCode()));
  }
  QDir().rmdir(e.outDir);  // an empty folder chosen in the dialog
  if (!QDir().rename(e.partDir, e.outDir))
    throw DataError(e.outDir.toStdString(), "the " + e.noun.toStdString() + " is complete in " +
                                                e.partDir.toStdString() +
                                                " but could not be renamed");
  return e.outDir;
}

}  // namespace

ReportExportController::ReportExportController(QObject* parent, CliExportKind kind,
                                               JobRunner* runner)
    : QObject(parent),
      m_kind(kind),
      m_runner(runner ? runner : new JobRunner(this)),
      m_ownsRunner(runner == nullptr) {
  connect(m_runner, &JobRunner::progress, this, [this](const QString& line) {
    if (m_running) emit progress(line);
  });
}

ReportExportController::~ReportExportController() {
  if (m_ownsRunner) delete m_runner;  // kills the child at its next check and joins
}

QString ReportExportController::noun() const {
  return m_kind == CliExportKind::Report ? QStringLiteral("report") : QStringLiteral("model");
}

QStringList ReportExportController::arguments(const QString& runDir, const QString& partDir,
                                              std::optional<qint64> step) const {
  QStringList args =
      m_kind == CliExportKind::Report
          ? QStringList{QStringLiteral("export"), runDir, QStringLiteral("--report"), partDir}
          : QStringList{QStringLiteral("export-model"), runDir, QStringLiteral("--out"), partDir};
  if (step) args << QStringLiteral("--step") << QString::number(*step);
  return args;
}

QString ReportExportController::cliPath() {
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("attnlab-cli"));
}

bool ReportExportController::isRunning() const {
  return m_running;
}

bool ReportExportController::start(const QString& runDir, const QString& outDir,
                                   std::optional<qint64> step, QString* whyNot) {
  auto fail = [whyNot](const QString& why) {
    if (whyNot) *whyNot = why;
    return false;
  };
  if (m_runner->isRunning())
    return fail(QStringLiteral("%1 is being exported already; cancel it or wait")
                    .arg(m_running ? QStringLiteral("a %1").arg(noun()) : m_runner->label()));
  CliExport e{
      cliPath(),
      {},
      QDir::cleanPath(outDir),
      {},
      noun(),
      m_kind == CliExportKind::Report ? QStringLiteral("export") : QStringLiteral("export-model")};
  if (!QFileInfo(e.cli).isExecutable())
    return fail(QStringLiteral("%1: not found; the %2 is written by attnlab-cli, which is "
                               "installed next to attnlab")
                    .arg(e.cli, noun()));
  const QDir out(outDir);
  if (out.exists() && !out.isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden))
    return fail(QStringLiteral("%1: the folder is not empty; choose a new or empty folder so no "
                               "earlier %2 is mixed in")
                    .arg(outDir, noun()));
  e.partDir = e.outDir + QStringLiteral(".part");
  QDir(e.partDir).removeRecursively();
  e.args = arguments(runDir, e.partDir, step);
  const bool launched = m_runner->start<QString>(
      QStringLiteral("the %1 export").arg(noun()),
      [e](const JobControl& control) { return runCliExport(e, control); },
      [this, outDir = e.outDir](const JobResult<QString>& r) {
        m_running = false;
        emit finished(r.ok(), outDir, r.message);
      },
      whyNot);
  if (!launched) return false;
  m_running = true;
  emit started(e.outDir);
  return true;
}

void ReportExportController::cancel() {
  if (m_running) m_runner->cancel();
}

}  // namespace attnlab::app
