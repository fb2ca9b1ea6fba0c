#pragma once

// File > Export figure, File > Export report and File > Export model: the dialogs, the
// exports they start, and what the person is told of them (through Notices). The figure
// comes from the current tab (ViewTabs), the report and the model from the current run in
// the sidebar. The two exports share one JobRunner (one export at a time) and one JobBar,
// which the window puts in its status bar.

#include "widgets/plots/plot_export.h"

#include <QObject>
#include <QString>

class QWidget;

namespace attnlab::app {

class AppSettings;
class JobBar;
class JobRunner;
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
  ReportExportController* modelExport() const { return m_modelExport; }
  /// The exports' progress and Cancel (for the status bar).
  JobBar* jobBar() const { return m_jobBar; }

  /// The bundle of the current run into `outDir` (written by attnlab-cli export --report in
  /// a child process; ReportExportController::finished follows). Returns the error when it
  /// cannot start, empty otherwise.
  QString exportReport(const QString& outDir);
  /// The current run's latest checkpoint as a Hugging Face folder in `outDir` (attnlab-cli
  /// export-model in a child process; modelExport()'s finished follows). The error when it
  /// cannot start, empty otherwise.
  QString exportModel(const QString& outDir);

 public slots:
  /// File > Export figure: the current tab's figure at a chosen file, size and DPI.
  void figureDialog();
  /// File > Export report: asks for a folder, then exportReport().
  void reportDialog();
  /// File > Export model: asks for a folder, then exportModel().
  void modelDialog();

 private:
  void tellProgress(ReportExportController* controller, const QString& what,
                    const QString& doneText);
  QString startExport(ReportExportController* controller, const QString& outDir);
  void askFolderAndExport(const QString& title, QString (WindowExports::*start)(const QString&),
                          const QString& errorPrefix);

  Parts m_parts;
  JobRunner* m_runner;  // first: deleted (and joined) before the controllers
  ReportExportController* m_reportExport;
  ReportExportController* m_modelExport;
  JobBar* m_jobBar;
};

}  // namespace attnlab::app
