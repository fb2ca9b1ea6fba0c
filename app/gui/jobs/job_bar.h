#pragma once

// The one progress and cancel widget of the app's jobs: a Run button (where the bar starts
// its own job), the running job's phase and progress, Cancel, and how the last job stopped
// ("Cancelling…", "Cancelled", "Failed: ..."); while its job runs the progress and Cancel
// take the Run button's place. It shows a JobRunner: the Analysis, Probe and
// Compare tabs each have one over the window's shared runner, and a bar there shows only the
// job its own button started (markStarted); while any job runs, every bar's Run button is
// disabled. A query-key map window's bar and the exports' bar in the status bar have no Run
// button and show every job of their runner (setFollowsEveryJob).

#include "app/gui/jobs/job_runner.h"

#include <QPointer>
#include <QString>
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace attnlab::app {

class JobBar : public QWidget {
  Q_OBJECT
 public:
  /// `runText`: the button's label ("Run analysis"; empty: no Run button); `name`: prefix of
  /// the child widgets' object names ("analysis" gives runAnalysisButton, analysisProgress,
  /// cancelAnalysisButton, analysisStatus).
  JobBar(const QString& runText, const QString& name, QWidget* parent = nullptr);

  void setRunner(JobRunner* runner);
  JobRunner* runner() const { return m_runner; }
  /// Whether there is something to run (a run with a checkpoint is selected).
  void setRunnable(bool runnable);
  /// Call right after starting this bar's job on the runner.
  void markStarted();
  /// Every job of the runner is this bar's (no markStarted needed).
  void setFollowsEveryJob(bool on);

  QPushButton* runButton() const { return m_run; }
  QPushButton* cancelButton() const { return m_cancel; }
  QProgressBar* progressBar() const { return m_progress; }
  /// "Cancelling…" while this bar's job stops, then "Cancelled" or "Failed: ..."; empty while
  /// it runs and after it is done (its result shows where it belongs).
  QString statusText() const;

 signals:
  void runClicked();

 private:
  void showProgress(const QString& phase, qint64 done, qint64 total);
  void showEnd(bool ok, bool cancelled, const QString& message);
  void update();
  bool mine() const;

  QPointer<JobRunner> m_runner;
  bool m_runnable = false;
  bool m_mine = false;  // the running job was started here
  bool m_followsEveryJob = false;
  QPushButton* m_run = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_cancel = nullptr;
  QLabel* m_status = nullptr;
};

}  // namespace attnlab::app
