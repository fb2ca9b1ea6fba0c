#pragma once

// A Run button, a progress bar and a Cancel button over the shared AnalysisController: the
// Analysis and Probe tabs each have one. The controller runs one job at a time, so a bar
// shows progress and reports the result only for the job its own button started; while
// any job runs, every bar's Run button is disabled.

#include <QPointer>
#include <QString>
#include <QWidget>

class QProgressBar;
class QPushButton;

namespace attnlab::app {

class AnalysisController;

class JobBar : public QWidget {
  Q_OBJECT
 public:
  /// `runText`: the button's label ("Run analysis"); `name`: prefix of the child widgets'
  /// object names ("analysis" gives runAnalysisButton, analysisProgress, cancelAnalysisButton).
  JobBar(const QString& runText, const QString& name, QWidget* parent = nullptr);

  void setController(AnalysisController* controller);
  /// Whether there is something to run (a run with a checkpoint is selected).
  void setRunnable(bool runnable);
  /// Call right after asking the controller to start this bar's job.
  void markStarted();
  QPushButton* runButton() const { return m_run; }

 signals:
  void runClicked();
  /// The job this bar started ended (see AnalysisController::finished).
  void jobFinished(bool ok, bool cancelled, const QString& message, const QString& report);

 private:
  void update();

  QPointer<AnalysisController> m_controller;
  bool m_runnable = false;
  bool m_mine = false;  // the running job was started here
  QPushButton* m_run = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_cancel = nullptr;
};

}  // namespace attnlab::app
