#pragma once

// The tabs that show one run follow one of the runs selected in the Runs list. These say
// which, and swap it, one way for all of them: Attention and Variants follow the first open
// run and listen to it; Analysis and Probe follow the first selected run's reports.

#include <QList>
#include <QPointer>

class QObject;

namespace attnlab::app {

class JobBar;
class ReportPicker;
class RunSession;

/// The first run of `runs` that is not null; null when there is none.
RunSession* firstOpenRun(const QList<RunSession*>& runs);

/// Makes `run` the one `followed` holds, first dropping every connection from the run it held
/// to `follower` (its signals must not reach a tab that left it). False, and nothing done,
/// when `run` is held already.
bool switchFollowedRun(QPointer<RunSession>& followed, RunSession* run, QObject* follower);

/// The Analysis and Probe tabs: the first of `runs` becomes `followed`, the run whose reports
/// `picker` lists and on which `jobBar` runs its job. True when the tab should rescan its
/// reports: always but when that run is followed already (then nothing is done).
bool followReportsOfFirstRun(const QList<RunSession*>& runs, QPointer<RunSession>& followed,
                             JobBar& jobBar, ReportPicker& picker);

}  // namespace attnlab::app
