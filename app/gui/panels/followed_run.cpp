#include "app/gui/panels/followed_run.h"

#include "app/gui/jobs/job_bar.h"
#include "app/gui/panels/report_picker.h"
#include "app/gui/run_session.h"

namespace attnlab::app {

RunSession* firstOpenRun(const QList<RunSession*>& runs) {
  for (RunSession* run : runs)
    if (run != nullptr) return run;
  return nullptr;
}

bool switchFollowedRun(QPointer<RunSession>& followed, RunSession* run, QObject* follower) {
  if (run == followed) return false;
  if (followed) QObject::disconnect(followed, nullptr, follower, nullptr);
  followed = run;
  return true;
}

bool followReportsOfFirstRun(const QList<RunSession*>& runs, QPointer<RunSession>& followed,
                             JobBar& jobBar, ReportPicker& picker) {
  RunSession* run = runs.isEmpty() ? nullptr : runs.first();
  if (run == followed && run != nullptr) return false;
  followed = run;
  jobBar.setRunnable(followed != nullptr);
  picker.setRunDirectory(followed ? followed->directory() : QString());
  return true;
}

}  // namespace attnlab::app
