#include "app/gui/panels/run_reports.h"

namespace attnlab::app {

QStringList runReports(const QString& runDirectory, analysis::ReportKind kind) {
  QStringList files;
  for (const analysis::ReportFile& r : analysis::reportFiles(runDirectory.toStdString(), kind))
    files << QString::fromStdString(r.file.string());
  return files;
}

}  // namespace attnlab::app
