#pragma once

// The Health tab's own measurement (docs/app.md, "Health tab"): for what has no health series
// to show (a pretrained model folder, a run trained with log.health = false or before the
// series existed), the attention-health report of its newest checkpoint, measured in the
// background by the same job as `attnlab-cli health` (analysis/jobs/health_job.h) on the
// probe sentences, the run's validation split or a text file, written where the command line
// writes it, and shown by the tab as a history of one step.

#include "analysis/jobs/health_job.h"
#include "core/runlog/health_history.h"

#include <QPointer>
#include <QString>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;

namespace attnlab::app {

class JobBar;
class JobRunner;
class RunSession;

/// The report as the tab's history: one row at the checkpoint's step. A massive entry's
/// token is sequence * longest + position, as the log writes b * T + t.
core::HealthHistory historyOfReport(const analysis::HealthReport& report);

/// "Measure health" with its evaluation source, progress and cancel; one job at a time on a
/// runner of its own.
class HealthMeasureBar : public QWidget {
  Q_OBJECT
 public:
  explicit HealthMeasureBar(QWidget* parent = nullptr);
  ~HealthMeasureBar() override;

  /// The run or model folder to measure (nullptr: none); a running measurement of another
  /// run is cancelled.
  void setRun(RunSession* run);
  /// Measures the selected run on the chosen source (what the button does). False, with the
  /// reason in the status line, when there is nothing to measure or a job runs.
  bool measure();

  JobBar* jobBar() const { return m_bar; }
  JobRunner* runner() const { return m_runner; }
  QComboBox* sourceBox() const { return m_source; }
  /// Where the sentences of "probe sentences" are written for the job (and for a check).
  QString probeTextPath() const;
  /// Sets the text file of the "text file" source (what Choose… does after its dialog).
  void setTextFile(const QString& path);

 signals:
  /// A measurement of `runDirectory` finished: the report and the folder it was written to.
  void measured(const QString& runDirectory,
                std::shared_ptr<const attnlab::analysis::HealthJobResult> result);

 private:
  void fillSources();
  QString chooseTextFile();
  analysis::HealthJobOptions optionsFor(QString* whyNot);

  QPointer<RunSession> m_run;
  QString m_runDirectory;
  QString m_textFile;
  int m_chosenSource = -1;  ///< the source the person picked (-1: the default for the run)
  JobRunner* m_runner = nullptr;
  JobBar* m_bar = nullptr;
  QComboBox* m_source = nullptr;
  QLabel* m_note = nullptr;
};

}  // namespace attnlab::app
