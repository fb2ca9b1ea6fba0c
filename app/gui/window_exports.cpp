#include "app/gui/window_exports.h"

#include "app/gui/app_settings.h"
#include "app/gui/jobs/job_bar.h"
#include "app/gui/jobs/job_runner.h"
#include "app/gui/notices.h"
#include "app/gui/panels/export_figure_dialog.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/report_export_controller.h"
#include "app/gui/run_session.h"
#include "app/gui/view_tabs.h"

#include <QDir>
#include <QFileDialog>

namespace attnlab::app {

WindowExports::WindowExports(const Parts& parts, QObject* parent)
    : QObject(parent),
      m_parts(parts),
      m_runner(new JobRunner(this)),
      m_reportExport(new ReportExportController(this, CliExportKind::Report, m_runner)),
      m_modelExport(new ReportExportController(this, CliExportKind::Model, m_runner)),
      m_jobBar(new JobBar(QString(), QStringLiteral("export"), parts.dialogParent)) {
  m_jobBar->setRunner(m_runner);
  m_jobBar->setFollowsEveryJob(true);
  tellProgress(m_reportExport, QStringLiteral("the report"),
               QStringLiteral("Report written to %1 (index.md)"));
  tellProgress(m_modelExport, QStringLiteral("the model"),
               QStringLiteral("Model written to %1 (a Hugging Face folder: "
                              "AutoModelForMaskedLM.from_pretrained reads it)"));
}

void WindowExports::tellProgress(ReportExportController* controller, const QString& what,
                                 const QString& doneText) {
  Notices* notices = m_parts.notices;
  connect(controller, &ReportExportController::started, notices,
          [notices, what](const QString& dir) {
            notices->progress(QStringLiteral("Exporting %1 to %2…").arg(what, dir));
          });
  connect(controller, &ReportExportController::progress, notices, &Notices::progress);
  connect(controller, &ReportExportController::finished, notices,
          [notices, what, doneText](bool ok, const QString& dir, const QString& error) {
            if (ok)
              notices->result(doneText.arg(dir), Notices::kErrorMs);
            else
              notices->error(QStringLiteral("Exporting %1: %2").arg(what, error));
          });
}

void WindowExports::figureDialog() {
  const QString suggested =
      QDir(m_parts.settings->runsFolder()).filePath(m_parts.views->currentFileStem() + ".png");
  auto* dialog = new ExportFigureDialog(suggested, m_parts.views->currentExportDefaults(),
                                        m_parts.dialogParent);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    const QString error = m_parts.views->exportCurrentView(dialog->path(), dialog->options());
    if (error.isEmpty())
      m_parts.notices->exportSucceeded(dialog->path());
    else
      m_parts.notices->exportFailed(error);
  });
  dialog->open();
}

QString WindowExports::startExport(ReportExportController* controller, const QString& outDir) {
  RunSession* run = m_parts.runsPanel->currentRun();
  if (run == nullptr) return QStringLiteral("open a run first");
  QString whyNot;
  if (!controller->start(run->directory(), outDir, std::nullopt, &whyNot)) return whyNot;
  return {};
}

QString WindowExports::exportReport(const QString& outDir) {
  return startExport(m_reportExport, outDir);
}

QString WindowExports::exportModel(const QString& outDir) {
  return startExport(m_modelExport, outDir);
}

void WindowExports::askFolderAndExport(const QString& title,
                                       QString (WindowExports::*start)(const QString&),
                                       const QString& errorPrefix) {
  RunSession* run = m_parts.runsPanel->currentRun();
  if (run == nullptr) {
    m_parts.notices->error(QStringLiteral("Open a run first: the export is the current run's"));
    return;
  }
  const QString dir = QFileDialog::getExistingDirectory(m_parts.dialogParent,
                                                        title.arg(run->name()), run->directory());
  if (dir.isEmpty()) return;
  const QString error = (this->*start)(dir);
  if (!error.isEmpty()) m_parts.notices->error(errorPrefix + error);
}

void WindowExports::reportDialog() {
  askFolderAndExport(QStringLiteral("Export the report of %1 into (a new or empty folder)"),
                     &WindowExports::exportReport, QStringLiteral("Report export: "));
}

void WindowExports::modelDialog() {
  askFolderAndExport(
      QStringLiteral("Export %1 as a Hugging Face model into (a new or empty folder)"),
      &WindowExports::exportModel, QStringLiteral("Model export: "));
}

}  // namespace attnlab::app
