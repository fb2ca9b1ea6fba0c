#include "app/gui/report_export_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace attnlab::app {

ReportExportController::ReportExportController(QObject* parent) : QObject(parent) {}

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
  if (isRunning()) return fail(QStringLiteral("a report is being exported already"));
  const QString cli = cliPath();
  if (!QFileInfo(cli).isExecutable())
    return fail(QStringLiteral("%1: not found; the report is written by attnlab-cli, which is "
                               "installed next to attnlab")
                    .arg(cli));
  const QDir out(outDir);
  if (out.exists() && !out.isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden))
    return fail(QStringLiteral("%1: the folder is not empty; choose a new or empty folder so no "
                               "earlier report is mixed in")
                    .arg(outDir));
  m_outDir = QDir::cleanPath(outDir);
  m_partDir = m_outDir + QStringLiteral(".part");
  QDir(m_partDir).removeRecursively();
  m_output.clear();
  m_cancelled = false;

  QStringList args{QStringLiteral("export"), runDir, QStringLiteral("--report"), m_partDir};
  if (step) args << QStringLiteral("--step") << QString::number(*step);
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
                ? QStringLiteral("attnlab-cli export stopped (exit %1)").arg(exitCode)
                : lines.mid(std::max<qsizetype>(0, lines.size() - 3)).join(QLatin1Char('\n'));
  } else {
    QDir().rmdir(m_outDir);  // an empty folder chosen in the dialog
    if (!QDir().rename(m_partDir, m_outDir))
      error = QStringLiteral("%1: the report is complete in %2 but could not be renamed")
                  .arg(m_outDir, m_partDir);
  }
  if (!error.isEmpty() && !(ran && !m_cancelled)) QDir(m_partDir).removeRecursively();
  emit finished(error.isEmpty(), m_outDir, error);
}

}  // namespace attnlab::app
