#pragma once

// A QSignalSpy on TrainingSession::finished(RunStatus, QString): whether the first end it
// recorded was a run that ended without failing (finished or stopped).

#include "app/gui/run_session.h"

#include <QSignalSpy>

namespace attnlab::test {

inline bool endedWell(const QSignalSpy& finished) {
  return !finished.isEmpty() &&
         finished.first().at(0).value<app::RunStatus>() != app::RunStatus::Failed;
}

}  // namespace attnlab::test
