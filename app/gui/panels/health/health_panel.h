#pragma once

// The Health tab (docs/app.md, "Health tab"): the attention health of the first selected run
// as its log records it (health/ series, docs/run-log.md): a layer x head heatmap of one
// quantity at the step the slider picks (following the newest step while the run trains,
// until the person moves it), that quantity's trend per head or per layer, the sink rate per
// token class, the massive-activation ratio and rank collapse per layer, and the alarms
// (entropy collapse, massive activation, sink-rate jump) with the thresholds of the app's
// settings. A click on a head or an alarm asks for the Inspect tab on that head at the
// nearest checkpoint (inspectRequested); each alarm is told once as a console line
// (alarmRaised). The data is what the run's watcher read on its own thread; this tab only
// gathers the new rows and redraws, at most every 40 ms and only while shown. What has no
// series of its own (a pretrained model folder, a run without them) can be measured from
// the tab (health_measurement.h) and is then shown as a history of one step.

#include "app/gui/app_settings.h"
#include "app/gui/panels/health/health_alarms.h"
#include "app/gui/panels/health/health_data.h"
#include "app/gui/panels/run_view.h"
#include "app/gui/run_session.h"
#include "widgets/plots/theme.h"

#include <QHash>
#include <QPointer>
#include <QSet>
#include <QTimer>
#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QListWidget;
class QPushButton;
class QSlider;

namespace attnlab::widgets {
class HeadValueMap;
class StepTrendPlot;
}  // namespace attnlab::widgets

namespace attnlab::app {

class HealthAlarmDialog;
class HealthMeasureBar;
class HealthPlots;
struct HealthView;
class PlaceholderStack;
class RefreshThrottle;

class HealthPanel : public QWidget, public RunView {
  Q_OBJECT
 public:
  explicit HealthPanel(QWidget* parent = nullptr);
  ~HealthPanel() override;

  void setRuns(const QList<RunSession*>& runs) override;
  void setTheme(const widgets::Theme& theme) override;
  /// File > Export figure on this tab: the heatmap.
  QString exportCurrentFigure(const QString& path, const widgets::ExportOptions& options) override;
  /// Where the alarm thresholds are kept (the window's settings); until set, an AppSettings
  /// of the tab's own over the same keys.
  void setSettings(AppSettings* settings);

  /// The health gathered so far of the followed run.
  const core::HealthHistory& history() const { return m_history; }
  const std::vector<HealthAlarm>& alarms() const { return m_alarms; }
  HealthQuantity quantity() const;
  int sinkClass() const;
  /// Shows `quantity` (and for SinkMass the class `sinkClass`), as the boxes do.
  void setQuantity(HealthQuantity quantity, int sinkClass = -1);
  /// The history's row the slider shows (-1 without rows), and its step.
  int shownRow() const;
  qint64 shownStep() const;
  bool followsLatest() const;
  /// Whether the content (not the placeholder line) is shown, and the line.
  bool showsContent() const;
  QString placeholderText() const;
  /// Opens the alarm thresholds dialog (the Alarms... button); it deletes itself on close.
  HealthAlarmDialog* openAlarmDialog();

  widgets::HeadValueMap* heatmap() const;
  widgets::StepTrendPlot* trendPlot() const;
  widgets::StepTrendPlot* sinkRatePlot() const;
  widgets::StepTrendPlot* massivePlot() const;
  widgets::StepTrendPlot* rankPlot() const;
  QLabel* hoverLabel() const;
  QSlider* stepSlider() const { return m_slider; }
  QComboBox* quantityBox() const { return m_quantityBox; }
  QComboBox* classBox() const { return m_classBox; }
  QComboBox* trendBox() const { return m_trendBox; }
  QCheckBox* followBox() const { return m_follow; }
  QListWidget* alarmList() const { return m_alarmList; }
  /// Measure health: shown while the followed run has no health series of its own.
  HealthMeasureBar* measureBar() const { return m_measure; }
  /// Whether the history shown is a measurement (the run has no series of its own).
  bool showsMeasurement() const { return m_showsMeasurement; }

 signals:
  /// The person asked to inspect (layer, head) at the run's checkpoint nearest to the step
  /// shown (or the alarm's step): `checkpointStep`, -1 when the run has none yet.
  void inspectRequested(int layer, int head, qint64 checkpointStep);
  /// An alarm of `run` found for the first time in this window: one console line.
  void alarmRaised(attnlab::app::RunSession* run, const attnlab::app::RunMessage& line);
  /// The rows gathered changed (tests wait on it).
  void historyChanged();

 private:
  QHBoxLayout* buildToolbar(QWidget* content);
  QHBoxLayout* buildStepBar(QWidget* content);
  QWidget* buildAlarmBox(QWidget* parent);
  void connectControls();
  void connectPlots();
  void showMeasurement(const QString& runDirectory, const core::HealthHistory& history);
  /// The measure bar is offered, and what the placeholder adds about it.
  bool offersMeasurement() const;

  void followRun(RunSession* run);
  /// Gathers the session's new health rows, finds the alarms again and tells the new ones.
  void ingest();
  void findAlarms();
  /// The thresholds changed: the alarms are found again and the plots redrawn.
  void thresholdsChanged();
  void fillAlarmList();
  void refresh();
  /// The Quantity box offers what the history holds (a rotary norm only when measured).
  void updateQuantityChoices();
  void updateSlider();
  bool updatePlaceholder();
  HealthView view() const;
  qint64 nearestCheckpoint(qint64 step) const;

  QPointer<RunSession> m_run;
  core::HealthHistory m_history;
  bool m_showsMeasurement = false;
  QHash<QString, core::HealthHistory> m_measured;  ///< per run folder: its last measurement
  QString m_error;  ///< the history cannot be gathered (a shape disagrees)
  std::vector<HealthAlarm> m_alarms;
  QHash<QString, QSet<QString>> m_told;  ///< per run folder: the alarms told to the console
  AppSettings* m_settings = nullptr;
  RefreshThrottle* m_refresh = nullptr;
  QTimer m_ingestTimer;  ///< gathers new rows once per batch of watcher updates
  bool m_dataDirty = true;
  bool m_stepDirty = true;
  widgets::Theme m_theme = widgets::Theme::light();

  PlaceholderStack* m_page = nullptr;
  HealthMeasureBar* m_measure = nullptr;
  QComboBox* m_quantityBox = nullptr;
  QComboBox* m_classBox = nullptr;
  QLabel* m_classLabel = nullptr;
  QComboBox* m_trendBox = nullptr;
  QPushButton* m_alarmButton = nullptr;
  QSlider* m_slider = nullptr;
  QLabel* m_stepLabel = nullptr;
  QCheckBox* m_follow = nullptr;
  HealthPlots* m_plots = nullptr;
  QListWidget* m_alarmList = nullptr;
  QLabel* m_alarmTitle = nullptr;
};

}  // namespace attnlab::app
