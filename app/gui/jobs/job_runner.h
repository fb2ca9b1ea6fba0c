#pragma once

// The one way the app runs work in the background (docs/app.md, "Jobs"): one job at a time on
// a thread of its own (a QThread, so a job may drive a QProcess), a cancel flag and a progress
// callback of the kinds analysis/runs/analysis_control.h defines, progress thinned to one
// queued signal per 100 ms (and every phase's change and end), the job's typed result handed
// to its `done` on the runner's (GUI) thread, and the thread joined before the next job and
// on destruction. Exceptions never cross the thread: attnlab::Cancelled ends a job as
// cancelled, any other as failed with its message. The Analysis, Probe and Compare tabs
// share the window's runner (AnalysisController); each query-key map window, the exports and
// the Inspect tab's passes have one of their own. A JobBar shows a runner's job.

#include "analysis/runs/analysis_control.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <utility>

class QThread;

namespace attnlab::app {

/// How a job ended.
enum class JobOutcome { Done, Cancelled, Failed };

/// What a job's work is handed on its thread: the analyses' progress callback (throttled
/// and queued to the GUI thread, so it returns at once) and cancel flag.
struct JobControl {
  analysis::AnalysisProgress progress;
  const std::atomic<bool>* cancel = nullptr;
  bool cancelled() const { return analysis::cancelRequested(cancel); }
};

/// A job's end with its value: `value` is set when the outcome is Done; `message` says why
/// not otherwise (what and where).
template <class Result>
struct JobResult {
  JobOutcome outcome = JobOutcome::Failed;
  QString message;
  std::shared_ptr<Result> value;
  bool ok() const { return outcome == JobOutcome::Done; }
  bool cancelled() const { return outcome == JobOutcome::Cancelled; }
};

class JobRunner : public QObject {
  Q_OBJECT
 public:
  template <class Result>
  using Work = std::function<Result(const JobControl&)>;
  template <class Result>
  using Done = std::function<void(const JobResult<Result>&)>;

  explicit JobRunner(QObject* parent = nullptr);
  ~JobRunner() override;  ///< cancels a job still running and joins its thread

  /// Runs `work` on a thread of its own. When it returns or throws, finished() is emitted on
  /// this object's thread and then `done` is called there with the outcome and the value.
  /// False (and `whyNot`) while a job runs: one at a time. `label` names the job for the bar
  /// ("analysis of tiny").
  template <class Result>
  bool start(const QString& label, Work<Result> work, Done<Result> done,
             QString* whyNot = nullptr) {
    auto value = std::make_shared<std::shared_ptr<Result>>();
    return launch(
        label,
        [work = std::move(work), value](const JobControl& control) {
          *value = std::make_shared<Result>(work(control));
        },
        [done = std::move(done), value](JobOutcome outcome, const QString& message) {
          if (!done) return;
          done(JobResult<Result>{outcome, message, outcome == JobOutcome::Done ? *value : nullptr});
        },
        whyNot);
  }

  /// Asks the job to stop at its next check; finished() then says whether it did (a job
  /// that was about to end may still end done). Nothing when no job runs.
  void cancel();
  bool isRunning() const { return m_running; }
  bool isCancelling() const;
  QString label() const { return m_label; }

 signals:
  void started(const QString& label);
  /// The running job's phase and its progress (total 0: not known), at most every 100 ms.
  void progress(const QString& phase, qint64 done, qint64 total);
  void cancelRequested();
  /// The job ended (before its `done` is called); `message` says why when not ok.
  void finished(bool ok, bool cancelled, const QString& message);

 private:
  using Body = std::function<void(const JobControl&)>;
  using Deliver = std::function<void(JobOutcome, const QString&)>;
  bool launch(const QString& label, Body body, Deliver deliver, QString* whyNot);
  analysis::AnalysisProgress queuedProgress(quint64 serial);
  void ended(quint64 serial, JobOutcome outcome, const QString& message, const Deliver& deliver);
  void join();

  std::unique_ptr<QThread> m_thread;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  bool m_running = false;
  quint64 m_serial = 0;  ///< the running (or last) job's number
  QString m_label;
};

}  // namespace attnlab::app
