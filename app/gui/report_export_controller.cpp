#include "app/gui/report_export_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace attnlab::app {

ReportExportController::ReportExportController(QObject* parent, CliExportKind kind)
    : QObject(parent), m_kind(kind) {}

QString ReportExportController::noun() const {
  return m_kind == CliExportKind::Report ? QStringLiteral("report") : QStringLiteral("model");
}

QStringList ReportExportController::arguments(const QString& runDir,
                                              std::optional<qint64> step) const {
  QStringList args =
      m_kind == CliExportKind::Report
          ? QStringList{QStringLiteral("export"), runDir, QStringLiteral("--report"), m_partDir}
          : QStringList{QStringLiteral("export-model"), runDir, QStringLiteral("--out"), m_partDir};
  if (step) args << QStringLiteral("--step") << QString::number(*step);
  return args;
}

ReportExportController::~ReportExportController() {
  if (m_process != nullptr && m_process->state() != QProcess::NotRunning) {
    m_process->disconnect(this);
    m_process->kill();
    m_process->waitForFinished(3000);
    QDir(m_partDir).removeRecursively();
  }
}

QString ReportExportController::cliPath() {
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("attnlab-cli"));
}

bool ReportExportController::isRunning() const {
  return m_process != nullptr && m_process->state() != QProcess::NotRunning;
}

bool ReportExportController::start(const QString& runDir, const QString& outDir,
                                   std::optional<qint64> step, QString* whyNot) {
  auto fail = [whyNot](const QString& why) {
    if (whyNot) *whyNot = why;
    return false;
  };
  if (isRunning()) return fail(QStringLiteral("a %1 is being exported already").arg(noun()));
  const QString cli = cliPath();
  if (!QFileInfo(cli).isExecutable())
    return fail(QStringLiteral("%1: not found; the %2 is written by attnlab-cli, which is "
                               "installed next to attnlab")
                    .arg(cli, noun()));
  const QDir out(outDir);
  if (out.exists() && !out.isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden))
    return fail(QStringLiteral("%1: the folder is not empty; choose a new or empty folder so no "
                               "earlier %2 is mixed in")
                    .arg(outDir, noun()));
  m_outDir = QDir::cleanPath(outDir);
  m_partDir = m_outDir + QStringLiteral(".part");
  QDir(m_partDir).removeRecursively();
  m_output.clear();
  m_cancelled = false;

  const QStringList args = arguments(runDir, step);
  delete m_process;
  m_process = new QProcess(this);
  m_process->setProcessChannelMode(QProcess::MergedChannels);
  connect(m_process, &QProcess::readyRead, this, [this] {
    while (m_process->canReadLine()) {
      const QString line = QString::fromUtf8(m_process->readLine()).trimmed();
      m_output += line + QLatin1Char('\n');
      if (!line.isEmpty()) emit progress(line);
    }
  });
  connect(m_process, &QProcess::finished, this, &ReportExportController::onFinished);
  connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) onFinished(-1, QProcess::CrashExit);
  });
  m_process->start(cli, args);
  emit started(m_outDir);
  return true;
}

void ReportExportController::cancel() {
  if (!isRunning()) return;
  m_cancelled = true;
  m_process->kill();
}

void ReportExportController::onFinished(int exitCode, QProcess::ExitStatus status) {
  m_output += QString::fromUtf8(m_process->readAll());
  const bool ran = status == QProcess::NormalExit && exitCode == 0;
  QString error;
  if (m_cancelled) {
    error = QStringLiteral("cancelled; nothing was written to %1").arg(m_outDir);
  } else if (!ran) {
    // The CLI's last lines say what and where (attnlab-cli: error: ...).
    const QStringList lines = m_output.trimmed().split(QLatin1Char('\n'));
    error = lines.isEmpty() || lines.back().isEmpty()
                ? QStringLiteral("attnlab-cli %1 stopped (exit %2)")
                      .arg(m_kind == CliExportKind::Report ? QStringLiteral("export")
                                                           : QStringLiteral("export-model"))
                      .arg(exitCode)
                : lines.mid(std::max<qsizetype>(0, lines.size() - 3)).join(QLatin1Char('\n'));
  } else {
    QDir().rmdir(m_outDir);  // an empty folder chosen in the dialog
    if (!QDir().rename(m_partDir, m_outDir))
      error = QStringLiteral("%1: the %2 is complete in %3 but could not be renamed")
                  .arg(m_outDir, noun(), m_partDir);
  }
  if (!error.isEmpty() && !(ran && !m_cancelled)) QDir(m_partDir).removeRecursively();
  emit finished(error.isEmpty(), m_outDir, error);
}

}  // namespace attnlab::app
