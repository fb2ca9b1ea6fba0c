#pragma once

// Where a run's reports are: `attnlab-cli analyze` writes <run>/analysis/step-S/analysis.json,
// `attnlab-cli probe coref` <run>/analysis/coref-step-S/coref.json. The Analysis and Probe
// tabs list them, and read them off the GUI thread, with this.

#include "analysis/report/report_layout.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QThreadPool>

#include <exception>
#include <memory>

namespace attnlab::app {

/// Every report of `kind` under <run>/analysis, ordered by the step in its folder's name
/// (folders named otherwise come first): analysis::reportFiles.
QStringList runReports(const QString& runDirectory, analysis::ReportKind kind);

/// Reads a report file off the GUI thread (a 12 x 12 analysis with its pairwise matrix is
/// several megabytes) with `read(path)`, then calls `done(report, error)` on the GUI thread,
/// unless `receiver` is gone by then: `report` is null and `error` says what and where when
/// the read threw.
template <typename Report, typename Receiver, typename Read, typename Done>
void readReportOffThread(Receiver* receiver, const QString& path, Read read, Done done) {
  QPointer<Receiver> alive(receiver);
  QThreadPool::globalInstance()->start([alive, path, read, done] {
    std::shared_ptr<Report> report;
    QString error;
    try {
      report = std::make_shared<Report>(read(path.toStdString()));
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        qApp,
        [alive, report, error, done] {
          if (alive) done(report, error);
        },
        Qt::QueuedConnection);
  });
}

}  // namespace attnlab::app
