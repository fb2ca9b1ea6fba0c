#pragma once

// Where a run's reports are: `attnlab-cli analyze` writes <run>/analysis/step-S/analysis.json,
// `attnlab-cli probe coref` <run>/analysis/coref-step-S/coref.json. The Analysis and Probe
// tabs list them with this.

#include <QString>
#include <QStringList>

namespace attnlab::app {

/// Every <run>/analysis/<folder>/<fileName>, ordered by the step in the folder's name
/// (`folderPrefix` then the step; folders named otherwise come first).
QStringList runReports(const QString& runDirectory, const QString& folderPrefix,
                       const QString& fileName);

}  // namespace attnlab::app
