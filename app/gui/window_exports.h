#pragma once

// File > Export figure and File > Export report: the dialogs, the exports they start, and
// what the person is told of them (through Notices). The figure comes from the current tab
// (ViewTabs), the report from the current run in the sidebar.

#include "widgets/plots/plot_export.h"

#include <QObject>
#include <QString>

class QWidget;

namespace attnlab::app {

class AppSettings;
class Notices;
class ReportExportController;
class RunsPanel;
class ViewTabs;

class WindowExports : public QObject {
  Q_OBJECT
 public:
  struct Parts {
    ViewTabs* views;
    RunsPanel* runsPanel;
    AppSettings* settings;
    Notices* notices;
    QWidget* dialogParent;
  };
  explicit WindowExports(const Parts& parts, QObject* parent = nullptr);

  ReportExportController* reportExport() const { return m_reportExport; }

  /// The bundle of the current run into `outDir` (written by attnlab-cli export --report in
  /// a child process; ReportExportController::finished follows). Returns the error when it
  /// cannot start, empty otherwise.
  QString exportReport(const QString& outDir);

 public slots:
  /// File > Export figure: the current tab's figure at a chosen file, size and DPI.
  void figureDialog();
  /// File > Export report: asks for a folder, then exportReport().
  void reportDialog();

 private:
  void tellReportProgress();

  Parts m_parts;
  ReportExportController* m_reportExport;
};

}  // namespace attnlab::app
