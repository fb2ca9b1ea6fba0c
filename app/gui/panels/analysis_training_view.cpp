#include "app/gui/panels/analysis_training_view.h"

#include "analysis/runs/analysis_report.h"
#include "figures/head_figures.h"
#include "widgets/plots/scatter_plot.h"
#include "widgets/plots/violin_grid.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>

namespace attnlab::app {

AnalysisTrainingView::AnalysisTrainingView(QWidget* parent) : AnalysisView(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_missing = new QLabel(this);
  m_missing->setObjectName(QStringLiteral("trainingMissing"));
  m_missing->setTextFormat(Qt::PlainText);
  m_missing->setWordWrap(true);
  m_missing->setVisible(false);
  layout->addWidget(m_missing);
  auto* split = new QSplitter(Qt::Vertical, this);
  m_lines = new widgets::ScatterPlot(split);
  m_lines->setObjectName(QStringLiteral("trainingLines"));
  m_lines->setMinimumHeight(200);
  auto* lower = new QWidget(split);
  auto* lowerLayout = new QVBoxLayout(lower);
  lowerLayout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Source"), lower));
  m_sourceBox = new QComboBox(lower);
  m_sourceBox->setObjectName(QStringLiteral("trainingSourceBox"));
  m_sourceBox->setToolTip(QStringLiteral(
      "snapshot: the run log's attention snapshots (its probe batch); checkpoint: the "
      "evaluation set under each checkpoint (attnlab-cli analyze --over-checkpoints)"));
  m_sourceBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_sourceBox->setMinimumContentsLength(10);
  bar->addWidget(m_sourceBox);
  bar->addWidget(new QLabel(QStringLiteral("Step"), lower));
  m_slider = new QSlider(Qt::Horizontal, lower);
  m_slider->setObjectName(QStringLiteral("trainingStepSlider"));
  m_slider->setPageStep(1);
  m_slider->setTickPosition(QSlider::TicksBelow);
  m_slider->setToolTip(QStringLiteral("Moves the marker and the medians below through the steps"));
  bar->addWidget(m_slider, 1);
  m_stepLabel = new QLabel(lower);
  m_stepLabel->setObjectName(QStringLiteral("trainingStepLabel"));
  m_stepLabel->setTextFormat(Qt::PlainText);
  m_stepLabel->setWordWrap(true);
  bar->addWidget(m_stepLabel, 2);
  lowerLayout->addLayout(bar);
  m_violins = new widgets::ViolinGrid(lower);
  m_violins->setObjectName(QStringLiteral("trainingViolins"));
  m_violins->setMinimumHeight(260);
  lowerLayout->addWidget(m_violins, 1);
  split->addWidget(m_lines);
  split->addWidget(lower);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);
  connect(m_slider, &QSlider::valueChanged, this, &AnalysisTrainingView::showStep);
  connect(m_sourceBox, &QComboBox::activated, this, [this] {
    redraw();
    emit figureChanged();
  });
}

void AnalysisTrainingView::setSource(const QString& source) {
  const int i = m_sourceBox->findText(source);
  if (i >= 0) m_sourceBox->setCurrentIndex(i);
  redraw();
  emit figureChanged();
}

QString AnalysisTrainingView::source() const {
  return m_sourceBox->currentText();
}

bool AnalysisTrainingView::exportsCatalogFigure() const {
  return !m_shown.report ||
         source().toStdString() == figures::defaultTrainingSource(*m_shown.report);
}

QString AnalysisTrainingView::figureName() const {
  return m_drawn ? QStringLiteral("training-statistics") : QString();
}

widgets::PlotWidget* AnalysisTrainingView::shownPlot() const {
  return m_drawn ? m_lines : nullptr;
}

void AnalysisTrainingView::setTheme(const widgets::Theme& theme) {
  m_lines->setTheme(theme);
  m_violins->setTheme(theme);
}

std::vector<std::int64_t> AnalysisTrainingView::steps() const {
  std::vector<std::int64_t> out;
  for (const auto* p : m_points) out.push_back(p->step);
  return out;
}

std::int64_t AnalysisTrainingView::currentStep() const {
  const int i = m_slider->value();
  return i >= 0 && i < static_cast<int>(m_points.size())
             ? m_points[static_cast<std::size_t>(i)]->step
             : -1;
}

void AnalysisTrainingView::setAdjacentJsd(bool jsd) {
  m_jsd = jsd;
  showStep(m_slider->value());
}

void AnalysisTrainingView::setReport(const ShownReport& shown) {
  m_shown = shown;
  {
    const QSignalBlocker block(m_sourceBox);
    m_sourceBox->clear();
    for (const std::string& s : figures::trainingSources(*shown.report))
      m_sourceBox->addItem(QString::fromStdString(s));
    m_sourceBox->setCurrentIndex(m_sourceBox->findText(
        QString::fromStdString(figures::defaultTrainingSource(*shown.report))));
    m_sourceBox->setEnabled(m_sourceBox->count() > 1);
  }
  redraw();
  emit figureChanged();
}

void AnalysisTrainingView::redraw() {
  if (!m_shown.report) return;
  const ShownReport& shown = m_shown;
  const std::string source = this->source().toStdString();
  m_points = figures::trainingPoints(*shown.report, source);
  try {
    figures::drawTrainingStatistics(*m_lines, *shown.report, shown.runName,
                                    shown.path.toStdString(), std::nullopt, source);
    m_drawn = true;
    m_missing->setVisible(false);
  } catch (const std::exception& e) {
    m_drawn = false;
    m_points.clear();
    m_lines->setPanels({});
    m_lines->setTitle({});
    m_missing->setText(QString::fromStdString(e.what()));
    m_missing->setVisible(true);
  }
  const QSignalBlocker block(m_slider);
  m_slider->setRange(0, std::max(0, static_cast<int>(m_points.size()) - 1));
  m_slider->setValue(m_slider->maximum());  // the latest step, next to the report's own
  m_slider->setEnabled(m_points.size() > 1);
  showStep(m_slider->value());
}

void AnalysisTrainingView::showStep(int index) {
  if (index < 0 || index >= static_cast<int>(m_points.size())) {
    m_violins->setSummaries(0, 0, {});
    m_violins->setTitle({});
    m_stepLabel->clear();
    m_lines->setMarker(std::nullopt);
    return;
  }
  const analysis::TrainingStatisticsPoint& p = *m_points[static_cast<std::size_t>(index)];
  const auto& s = m_shown.report->statistics;
  m_lines->setMarker(static_cast<double>(p.step));
  // The report keeps only medians per step: each violin is its median alone (no spread).
  const std::vector<double>& medians = m_jsd ? p.medianAdjacentJsd : p.medianEntropy;
  const int rows = m_jsd ? s.layers - 1 : s.layers;
  std::vector<analysis::DistributionSummary> summaries;
  for (double m : medians) {
    analysis::DistributionSummary d;
    d.count = std::max<std::int64_t>(1, p.sequences);
    d.mean = d.min = d.max = d.q1 = d.median = d.q3 = m;
    summaries.push_back(d);
  }
  if (rows < 1 || summaries.size() != static_cast<std::size_t>(rows * s.heads)) {
    m_violins->setSummaries(0, 0, {});
    m_violins->setTitle(QStringLiteral("no medians of this statistic at step %1").arg(p.step));
    return;
  }
  m_violins->setScale(!m_jsd                                 ? widgets::ViolinScale::entropyNats()
                      : s.jsdBase == analysis::LogBase::Bits ? widgets::ViolinScale::jsdBits()
                                                             : widgets::ViolinScale::jsdNats());
  m_violins->setSummaries(rows, s.heads, std::move(summaries));
  QStringList labels;
  for (int r = 0; r < rows; ++r)
    labels << (m_jsd ? QStringLiteral("L%1-L%2").arg(r).arg(r + 1) : QStringLiteral("L%1").arg(r));
  m_violins->setRowLabels(labels);
  const QString what = m_jsd ? QStringLiteral("JSD to the layer below") : QStringLiteral("entropy");
  m_violins->setTitle(
      QStringLiteral("Median %1 per head at step %2 (medians only: the report keeps whole "
                     "distributions for its own checkpoint, step %3)")
          .arg(what)
          .arg(p.step)
          .arg(m_shown.report->source.step));
  m_stepLabel->setText(QStringLiteral("step %1 (%2, %3 sequences); %4 of %5")
                           .arg(p.step)
                           .arg(QString::fromStdString(p.source))
                           .arg(p.sequences)
                           .arg(index + 1)
                           .arg(m_points.size()));
}

}  // namespace attnlab::app
