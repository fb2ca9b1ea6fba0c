#include "app/gui/panels/health/health_panel.h"

#include "app/gui/panels/figure_files.h"
#include "app/gui/panels/followed_run.h"
#include "app/gui/panels/health/health_alarm_dialog.h"
#include "app/gui/panels/health/health_measurement.h"
#include "app/gui/panels/health/health_plots.h"
#include "app/gui/panels/placeholder_stack.h"
#include "app/gui/panels/refresh_throttle.h"
#include "widgets/plots/head_value_map.h"
#include "widgets/plots/step_trend_plot.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSplitter>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdlib>

namespace attnlab::app {

namespace {
// New rows are gathered at most this often (the watcher polls every 200 ms while live).
constexpr int kIngestMs = 100;

bool isLive(RunStatus status) {
  return isActiveHere(status) || status == RunStatus::LiveElsewhere;
}
}  // namespace

HealthPanel::HealthPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("healthPanel"));
  m_settings = new AppSettings(this);
  m_refresh = new RefreshThrottle(this, [this] { refresh(); });
  m_ingestTimer.setSingleShot(true);
  m_ingestTimer.setInterval(kIngestMs);
  connect(&m_ingestTimer, &QTimer::timeout, this, &HealthPanel::ingest);
  // The measure bar above the page: it is offered while the page says there is no series.
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(4, 4, 4, 4);
  m_measure = new HealthMeasureBar(this);
  outer->addWidget(m_measure);
  m_page = new PlaceholderStack(QStringLiteral("healthPlaceholder"), this);
  outer->addWidget(m_page, 1);
  auto* content = new QWidget(m_page);
  auto* column = new QVBoxLayout(content);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(4);
  m_page->setContent(content);
  connect(m_measure, &HealthMeasureBar::measured, this,
          [this](const QString& dir, std::shared_ptr<const analysis::HealthJobResult> result) {
            showMeasurement(dir, historyOfReport(result->report));
          });
  column->addLayout(buildToolbar(content));
  column->addLayout(buildStepBar(content));
  auto* splitter = new QSplitter(Qt::Vertical, content);
  splitter->setObjectName(QStringLiteral("healthSplitter"));
  m_plots = new HealthPlots(splitter);
  splitter->addWidget(m_plots);
  splitter->addWidget(buildAlarmBox(splitter));
  splitter->setStretchFactor(0, 6);
  splitter->setStretchFactor(1, 1);
  column->addWidget(splitter, 1);
  connectControls();
  connectPlots();
  setSettings(m_settings);
  refresh();
}

HealthPanel::~HealthPanel() = default;

QHBoxLayout* HealthPanel::buildToolbar(QWidget* content) {
  auto* bar = new QHBoxLayout;
  bar->setSpacing(8);
  m_quantityBox = new QComboBox(content);
  m_quantityBox->setObjectName(QStringLiteral("healthQuantity"));
  for (const HealthQuantityInfo& info : healthQuantities()) {
    m_quantityBox->addItem(info.label, static_cast<int>(info.quantity));
    m_quantityBox->setItemData(m_quantityBox->count() - 1, info.meaning, Qt::ToolTipRole);
  }
  m_quantityBox->setCurrentIndex(
      m_quantityBox->findData(static_cast<int>(HealthQuantity::EntropyMin)));
  auto* quantityLabel = new QLabel(QStringLiteral("Quantity"), content);
  quantityLabel->setBuddy(m_quantityBox);
  m_classBox = new QComboBox(content);
  m_classBox->setObjectName(QStringLiteral("healthSinkClass"));
  for (const auto& name : core::healthClassNames())
    m_classBox->addItem(QString::fromStdString(name));
  m_classBox->setToolTip(QStringLiteral(
      "The token class whose keys' mass is shown: the first position, [CLS]/<s>, [SEP]/</s>, "
      "punctuation, every other token"));
  m_classLabel = new QLabel(QStringLiteral("on"), content);
  m_classLabel->setBuddy(m_classBox);
  m_trendBox = new QComboBox(content);
  m_trendBox->setObjectName(QStringLiteral("healthTrendMode"));
  m_trendBox->addItem(QStringLiteral("per head"));
  m_trendBox->addItem(QStringLiteral("per layer (mean over heads)"));
  auto* trendLabel = new QLabel(QStringLiteral("Trend"), content);
  trendLabel->setBuddy(m_trendBox);
  m_alarmButton = new QPushButton(QStringLiteral("Alarms…"), content);
  m_alarmButton->setObjectName(QStringLiteral("healthAlarmSettings"));
  m_alarmButton->setToolTip(QStringLiteral("The alarms' thresholds (kept in the app's settings)"));
  for (QWidget* w :
       std::initializer_list<QWidget*>{quantityLabel, m_quantityBox, m_classLabel, m_classBox})
    bar->addWidget(w);
  bar->addSpacing(12);
  bar->addWidget(trendLabel);
  bar->addWidget(m_trendBox);
  bar->addStretch(1);
  bar->addWidget(m_alarmButton);
  m_classBox->setVisible(false);
  m_classLabel->setVisible(false);
  return bar;
}

QHBoxLayout* HealthPanel::buildStepBar(QWidget* content) {
  auto* bar = new QHBoxLayout;
  bar->setSpacing(8);
  auto* title = new QLabel(QStringLiteral("Step"), content);
  m_slider = new QSlider(Qt::Horizontal, content);
  m_slider->setObjectName(QStringLiteral("healthStepSlider"));
  m_slider->setPageStep(1);
  m_slider->setTickPosition(QSlider::TicksBelow);
  m_slider->setToolTip(QStringLiteral(
      "The logged step the heatmap shows (health is logged at step 0, every log.health_every "
      "steps and the last)"));
  title->setBuddy(m_slider);
  m_stepLabel = new QLabel(content);
  m_stepLabel->setObjectName(QStringLiteral("healthStepLabel"));
  m_stepLabel->setMinimumWidth(
      m_stepLabel->fontMetrics().horizontalAdvance(QStringLiteral("step 1000000 · 1000 of 1000")));
  m_follow = new QCheckBox(QStringLiteral("Follow latest"), content);
  m_follow->setObjectName(QStringLiteral("healthFollow"));
  m_follow->setChecked(true);
  m_follow->setToolTip(QStringLiteral("Show each new logged step as training writes it"));
  bar->addWidget(title);
  bar->addWidget(m_slider, 1);
  bar->addWidget(m_stepLabel);
  bar->addWidget(m_follow);
  return bar;
}

QWidget* HealthPanel::buildAlarmBox(QWidget* parent) {
  auto* box = new QWidget(parent);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 2, 0, 0);
  layout->setSpacing(2);
  m_alarmTitle = new QLabel(box);
  m_alarmTitle->setObjectName(QStringLiteral("healthAlarmTitle"));
  m_alarmList = new QListWidget(box);
  m_alarmList->setObjectName(QStringLiteral("healthAlarms"));
  m_alarmList->setMinimumHeight(48);
  layout->addWidget(m_alarmTitle);
  layout->addWidget(m_alarmList, 1);
  return box;
}

void HealthPanel::connectControls() {
  // A person's choice is drawn at once (when shown); the data's pace is the throttle's.
  const auto redrawAll = [this] {
    m_dataDirty = true;
    refresh();
  };
  connect(m_quantityBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [=, this] {
    const bool sink = quantity() == HealthQuantity::SinkMass;
    m_classBox->setVisible(sink);
    m_classLabel->setVisible(sink);
    redrawAll();
  });
  connect(m_classBox, qOverload<int>(&QComboBox::currentIndexChanged), this, redrawAll);
  connect(m_trendBox, qOverload<int>(&QComboBox::currentIndexChanged), this, redrawAll);
  // Programmatic moves are made under a QSignalBlocker: this is the person's hand.
  connect(m_slider, &QSlider::valueChanged, this, [this] {
    m_follow->setChecked(false);
    m_stepDirty = true;
    m_refresh->request();
  });
  connect(m_follow, &QCheckBox::toggled, this, [this](bool on) {
    if (!on) return;
    m_stepDirty = true;
    refresh();
  });
  connect(m_alarmButton, &QPushButton::clicked, this, &HealthPanel::openAlarmDialog);
  connect(m_alarmList, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    const int i = item->data(Qt::UserRole).toInt();
    if (i < 0 || i >= static_cast<int>(m_alarms.size())) return;
    const HealthAlarm alarm = m_alarms[static_cast<std::size_t>(i)];
    m_follow->setChecked(false);  // the person's choice of step
    m_slider->setValue(alarm.row);
    refresh();
    emit inspectRequested(alarm.layer, alarm.head, nearestCheckpoint(alarm.step));
  });
}

void HealthPanel::connectPlots() {
  connect(heatmap(), &widgets::HeadValueMap::headClicked, this, [this](int layer, int head) {
    heatmap()->setSelectedHead(layer, head);
    emit inspectRequested(layer, head, nearestCheckpoint(shownStep()));
  });
  connect(heatmap(), &widgets::HeadValueMap::headHovered, this,
          [this](int layer, int head) { m_plots->showHover(view(), layer, head); });
}

void HealthPanel::setSettings(AppSettings* settings) {
  if (settings == nullptr) return;
  if (m_settings != settings) {
    disconnect(m_settings, nullptr, this, nullptr);
    if (m_settings->parent() == this) m_settings->deleteLater();
    m_settings = settings;
  }
  connect(m_settings, &AppSettings::healthAlarmsChanged, this, &HealthPanel::thresholdsChanged,
          Qt::UniqueConnection);
  if (!m_history.empty()) thresholdsChanged();
}

void HealthPanel::thresholdsChanged() {
  findAlarms();
  m_dataDirty = true;
  m_refresh->request();
}

void HealthPanel::setRuns(const QList<RunSession*>& runs) {
  RunSession* run = firstOpenRun(runs);
  if (!switchFollowedRun(m_run, run, this)) return;
  followRun(run);
}

void HealthPanel::followRun(RunSession* run) {
  m_history = {};
  m_showsMeasurement = false;
  m_measure->setRun(run);
  m_error.clear();
  m_alarms.clear();
  m_ingestTimer.stop();
  {
    const QSignalBlocker block(m_follow);
    m_follow->setChecked(true);
  }
  heatmap()->setSelectedHead(-1, -1);
  m_dataDirty = m_stepDirty = true;
  if (run != nullptr) {
    connect(run, &RunSession::layerSeriesChanged, this, [this](const QStringList& names) {
      const bool health = std::any_of(names.begin(), names.end(), [](const QString& n) {
        return n.startsWith(QLatin1String("health/"));
      });
      if (health && m_showsMeasurement) {
        // The run's own series (it was resumed): they take the measurement's place.
        m_showsMeasurement = false;
        m_history = {};
        m_alarms.clear();
      }
      if (health && !m_ingestTimer.isActive()) m_ingestTimer.start();
    });
    // The first batch (name, configuration) and the status change what the placeholder says.
    for (auto signal : {&RunSession::metadataChanged, &RunSession::statusChanged})
      connect(run, signal, this, [this] { m_refresh->request(); });
    connect(run, &QObject::destroyed, this, [this] { m_refresh->request(); });
  }
  ingest();
  if (run != nullptr && m_history.empty() && m_measured.contains(run->directory()))
    showMeasurement(run->directory(), m_measured.value(run->directory()));
  fillAlarmList();
  if (isVisible()) refresh();
}

void HealthPanel::showMeasurement(const QString& runDirectory, const core::HealthHistory& history) {
  m_measured.insert(runDirectory, history);
  if (!m_run || m_run->directory() != runDirectory) return;
  if (!m_showsMeasurement && !m_history.empty()) return;  // the log's own series came first
  m_history = history;
  m_showsMeasurement = true;
  m_error.clear();
  findAlarms();
  m_dataDirty = m_stepDirty = true;
  emit historyChanged();
  m_refresh->request();
}

bool HealthPanel::offersMeasurement() const {
  if (!m_run || !m_error.isEmpty()) return false;
  if (m_showsMeasurement) return true;
  const RunStatus status = m_run->status();
  return m_history.empty() && (status == RunStatus::Pretrained || !isLive(status)) &&
         !(status == RunStatus::Opening && m_run->configToml().isEmpty());
}

void HealthPanel::ingest() {
  if (!m_run || m_showsMeasurement) return;
  QString error;
  const int added = appendHealthRows(m_run->layerSeries(), m_history, &error);
  if (added < 0) m_error = error;
  if (added > 0) {
    findAlarms();
    m_dataDirty = true;
    emit historyChanged();
  }
  m_refresh->request();
}

void HealthPanel::findAlarms() {
  m_alarms = findHealthAlarms(m_history, m_settings->healthAlarms());
  if (m_run) {
    QSet<QString>& told = m_told[m_run->directory()];
    for (const HealthAlarm& alarm : m_alarms) {
      if (told.contains(alarm.key())) continue;
      told.insert(alarm.key());
      RunMessage line;
      line.step = alarm.step;
      line.wallTime = QDateTime::currentMSecsSinceEpoch() / 1000.0;
      line.kind = QStringLiteral("health alarm");
      line.text = alarm.text;
      emit alarmRaised(m_run, line);
    }
  }
  fillAlarmList();
}

void HealthPanel::fillAlarmList() {
  m_alarmList->clear();
  for (std::size_t i = 0; i < m_alarms.size(); ++i) {
    const HealthAlarm& a = m_alarms[i];
    auto* item = new QListWidgetItem(QStringLiteral("step %1 · %2").arg(a.step).arg(a.text));
    item->setData(Qt::UserRole, static_cast<int>(i));
    item->setToolTip(QStringLiteral("Click to inspect layer %1 head %2 at the nearest checkpoint")
                         .arg(a.layer)
                         .arg(a.head));
    m_alarmList->addItem(item);
  }
  const HealthAlarmSettings t = m_settings->healthAlarms();
  m_alarmTitle->setText(
      QStringLiteral("Alarms (%1) · entropy collapse under %2 nats while S_max rises, massive "
                     "activation over %3, sink-rate jump over %4 · click one to inspect its head")
          .arg(m_alarms.size())
          .arg(t.entropyCollapseNats)
          .arg(t.massiveRatio)
          .arg(t.sinkRateJump));
}

void HealthPanel::refresh() {
  m_refresh->cancel();
  if (!isVisible()) return;
  if (!updatePlaceholder()) return;
  updateQuantityChoices();
  updateSlider();
  if (m_dataDirty) {
    m_plots->drawAll(view());
  } else if (m_stepDirty) {
    m_plots->drawStep(view());
  }
  m_dataDirty = m_stepDirty = false;
}

bool HealthPanel::updatePlaceholder() {
  QString text;
  if (!m_run) {
    text = QStringLiteral("Select a run in the Runs list to see its attention health.");
  } else if (!m_error.isEmpty()) {
    text =
        QStringLiteral("The health series of %1 cannot be shown: %2").arg(m_run->name(), m_error);
  } else if (m_history.empty()) {
    const RunStatus status = m_run->status();
    if (status == RunStatus::Pretrained)
      text = QStringLiteral(
                 "%1 is a pretrained model folder: it has no training history, so no "
                 "attention-health series.")
                 .arg(m_run->name());
    else if (status == RunStatus::Opening && m_run->configToml().isEmpty())
      text = QStringLiteral("Reading the run log of %1…").arg(m_run->name());
    else
      text = whyNoHealth(m_run->configToml(), isLive(status));
  }
  m_measure->setVisible(offersMeasurement());
  if (text.isEmpty()) {
    m_page->showContent();
    return true;
  }
  if (offersMeasurement())
    text +=
        QStringLiteral(
            "\n\nMeasure health (above) reads %1 on the probe sentences, %2 a text file of yours, "
            "as attnlab-cli health does, and shows it here.")
            .arg(m_run->status() == RunStatus::Pretrained
                     ? QStringLiteral("its attention")
                     : QStringLiteral("the newest checkpoint's attention"),
                 m_run->status() == RunStatus::Pretrained
                     ? QStringLiteral("or")
                     : QStringLiteral("the run's validation split or"));
  m_page->showPlaceholder(text);
  return false;
}

void HealthPanel::updateQuantityChoices() {
  auto* items = qobject_cast<QStandardItemModel*>(m_quantityBox->model());
  if (items == nullptr) return;
  for (int i = 0; i < m_quantityBox->count(); ++i) {
    const auto q = static_cast<HealthQuantity>(m_quantityBox->itemData(i).toInt());
    items->item(i)->setEnabled(historyHas(m_history, q));
  }
  if (!historyHas(m_history, quantity())) setQuantity(HealthQuantity::EntropyMin);
}

void HealthPanel::updateSlider() {
  const int rows = static_cast<int>(m_history.steps.size());
  const QSignalBlocker block(m_slider);
  m_slider->setRange(0, std::max(0, rows - 1));
  if (m_follow->isChecked() && m_slider->value() != rows - 1) {
    m_slider->setValue(rows - 1);
    m_stepDirty = true;
  }
  m_slider->setEnabled(rows > 1);
  const int row = shownRow();
  m_stepLabel->setText(row < 0 ? QString()
                               : QStringLiteral("step %1 · %2 of %3")
                                     .arg(m_history.steps[static_cast<std::size_t>(row)])
                                     .arg(row + 1)
                                     .arg(rows));
}

HealthView HealthPanel::view() const {
  HealthView v;
  v.history = &m_history;
  v.quantity = quantity();
  v.sinkClass = sinkClass();
  v.perLayer = m_trendBox->currentIndex() == 1;
  v.row = shownRow();
  v.alarms = &m_alarms;
  v.thresholds = m_settings->healthAlarms();
  return v;
}

qint64 HealthPanel::nearestCheckpoint(qint64 step) const {
  if (!m_run || m_run->checkpoints().empty()) return -1;
  qint64 best = m_run->checkpoints().front().step;
  for (const CheckpointInfo& c : m_run->checkpoints())
    if (std::llabs(c.step - step) < std::llabs(best - step)) best = c.step;
  return best;
}

void HealthPanel::setTheme(const widgets::Theme& theme) {
  m_theme = theme;
  m_plots->setTheme(theme);
  m_dataDirty = true;  // the lines' colours come from the theme
  m_refresh->request();
}

QString HealthPanel::exportCurrentFigure(const QString& path,
                                         const widgets::ExportOptions& options) {
  return exportPlotFile(m_history.empty() ? nullptr : heatmap(), path, options);
}

HealthQuantity HealthPanel::quantity() const {
  return static_cast<HealthQuantity>(m_quantityBox->currentData().toInt());
}

int HealthPanel::sinkClass() const {
  return std::max(0, m_classBox->currentIndex());
}

void HealthPanel::setQuantity(HealthQuantity quantity, int sinkClass) {
  if (sinkClass >= 0) m_classBox->setCurrentIndex(sinkClass);
  m_quantityBox->setCurrentIndex(m_quantityBox->findData(static_cast<int>(quantity)));
}

int HealthPanel::shownRow() const {
  return m_history.steps.empty() ? -1 : m_slider->value();
}

qint64 HealthPanel::shownStep() const {
  const int row = shownRow();
  return row < 0 ? -1 : m_history.steps[static_cast<std::size_t>(row)];
}

bool HealthPanel::followsLatest() const {
  return m_follow->isChecked();
}

bool HealthPanel::showsContent() const {
  return m_page->showsContent();
}

QString HealthPanel::placeholderText() const {
  return m_page->placeholder()->text();
}

HealthAlarmDialog* HealthPanel::openAlarmDialog() {
  auto* dialog = new HealthAlarmDialog(m_settings, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->open();
  return dialog;
}

widgets::HeadValueMap* HealthPanel::heatmap() const {
  return m_plots->heatmap();
}

widgets::StepTrendPlot* HealthPanel::trendPlot() const {
  return m_plots->trend();
}

widgets::StepTrendPlot* HealthPanel::sinkRatePlot() const {
  return m_plots->sinkRates();
}

widgets::StepTrendPlot* HealthPanel::massivePlot() const {
  return m_plots->massive();
}

widgets::StepTrendPlot* HealthPanel::rankPlot() const {
  return m_plots->rank();
}

QLabel* HealthPanel::hoverLabel() const {
  return m_plots->hoverLabel();
}

}  // namespace attnlab::app
