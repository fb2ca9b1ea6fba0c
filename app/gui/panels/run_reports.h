#pragma once

// Where a run's reports are: `attnlab-cli analyze` writes <run>/analysis/step-S/analysis.json,
// `attnlab-cli probe coref` <run>/analysis/coref-step-S/coref.json. The Analysis and Probe
// tabs list them with this (panels/newest_wins.h reads them off the GUI thread).

#include "analysis/report/report_layout.h"

#include <QString>
#include <QStringList>

namespace attnlab::app {

/// Every report of `kind` under <run>/analysis, ordered by the step in its folder's name
/// (folders named otherwise come first): analysis::reportFiles.
QStringList runReports(const QString& runDirectory, analysis::ReportKind kind);

}  // namespace attnlab::app
