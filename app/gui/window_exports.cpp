#include "app/gui/window_exports.h"

#include "app/gui/app_settings.h"
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
    : QObject(parent), m_parts(parts), m_reportExport(new ReportExportController(this)) {
  tellReportProgress();
}

void WindowExports::tellReportProgress() {
  Notices* notices = m_parts.notices;
  connect(m_reportExport, &ReportExportController::started, notices, [notices](const QString& dir) {
    notices->progress(QStringLiteral("Exporting the report to %1…").arg(dir));
  });
  connect(m_reportExport, &ReportExportController::progress, notices, &Notices::progress);
  connect(m_reportExport, &ReportExportController::finished, notices,
          [notices](bool ok, const QString& dir, const QString& error) {
            if (ok)
              notices->result(QStringLiteral("Report written to %1 (index.md)").arg(dir),
                              Notices::kErrorMs);
            else
              notices->error(QStringLiteral("Report export: %1").arg(error));
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

QString WindowExports::exportReport(const QString& outDir) {
  RunSession* run = m_parts.runsPanel->currentRun();
  if (run == nullptr) return QStringLiteral("open a run first");
  QString whyNot;
  if (!m_reportExport->start(run->directory(), outDir, std::nullopt, &whyNot)) return whyNot;
  return {};
}

void WindowExports::reportDialog() {
  RunSession* run = m_parts.runsPanel->currentRun();
  if (run == nullptr) {
    m_parts.notices->error(QStringLiteral("Open a run first: the report is the current run's"));
    return;
  }
  const QString dir = QFileDialog::getExistingDirectory(
      m_parts.dialogParent,
      QStringLiteral("Export the report of %1 into (a new or empty folder)").arg(run->name()),
      run->directory());
  if (dir.isEmpty()) return;
  const QString error = exportReport(dir);
  if (!error.isEmpty()) m_parts.notices->error(QStringLiteral("Report export: %1").arg(error));
}

}  // namespace attnlab::app
