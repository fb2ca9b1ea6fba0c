#pragma once

// The report chooser of the Analysis and Probe tabs: "Report" and a box of one run's reports
// of one kind (analysis.json under <run>/analysis/step-S/, coref.json under
// coref-step-S/, listed by step through analysis/report/report_layout.h), and Open report...
// for any such file elsewhere. It lists and asks; the tab reads the report it is given.

#include "analysis/report/report_layout.h"

#include <QString>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QPushButton;

namespace attnlab::app {

class ReportPicker : public QWidget {
  Q_OBJECT
 public:
  /// `boxName` and `openName` are the object names of the box and the Open report... button
  /// (each tab keeps its own: "analysisReportBox", "probeReportBox", ...).
  ReportPicker(analysis::ReportKind kind, const QString& boxName, const QString& openName,
               QWidget* parent = nullptr);

  /// The run whose reports rescan() lists (empty: none).
  void setRunDirectory(const QString& runDirectory);
  /// Lists the run's reports again (a job has written one) and selects the newest.
  void rescan();
  /// The run's report files, by step.
  QStringList files() const { return m_files; }
  /// Selects `path` in the box when it is one of the run's reports; false when it is not.
  bool select(const QString& path);

 signals:
  /// The person chose a report: an entry of the box, or a file through Open report....
  void picked(const QString& path);

 private:
  void chooseFile();

  analysis::ReportKind m_kind;
  QString m_runDirectory;
  QStringList m_files;
  QComboBox* m_box = nullptr;
  QPushButton* m_open = nullptr;
};

}  // namespace attnlab::app
