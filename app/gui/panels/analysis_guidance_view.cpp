#include "app/gui/panels/analysis_guidance_view.h"

#include "analysis/runs/analysis_report.h"
#include "figures/head_figures.h"
#include "widgets/plots/matrix_heatmap.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <exception>

namespace attnlab::app {

AnalysisGuidanceView::AnalysisGuidanceView(QWidget* parent) : AnalysisView(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Pattern"), this));
  m_patternBox = new QComboBox(this);
  m_patternBox->setObjectName(QStringLiteral("guidancePatternBox"));
  m_patternBox->addItem(QStringLiteral("all five patterns"));
  for (const char* p : analysis::kGuidancePatterns) m_patternBox->addItem(QString::fromUtf8(p));
  m_patternBox->setToolTip(QStringLiteral(
      "Distance of each head's attention rows to the pattern: 0 = the head follows it"));
  bar->addWidget(m_patternBox);
  bar->addStretch(1);
  layout->addLayout(bar);
  m_heatmap = new widgets::MatrixHeatmap(this);
  m_heatmap->setObjectName(QStringLiteral("guidanceHeatmap"));
  layout->addWidget(m_heatmap, 1);
  connect(m_patternBox, &QComboBox::currentIndexChanged, this, [this] {
    redraw();
    emit figureChanged();
  });
}

std::optional<int> AnalysisGuidanceView::pattern() const {
  const int i = m_patternBox->currentIndex();
  return i <= 0 ? std::nullopt : std::optional<int>(i - 1);
}

void AnalysisGuidanceView::setPattern(std::optional<int> pattern) {
  m_patternBox->setCurrentIndex(pattern ? *pattern + 1 : 0);
}

QString AnalysisGuidanceView::figureName() const {
  return m_drawn ? QStringLiteral("guidance-conformity") : QString();
}

widgets::PlotWidget* AnalysisGuidanceView::shownPlot() const {
  return m_drawn ? m_heatmap : nullptr;
}

void AnalysisGuidanceView::setTheme(const widgets::Theme& theme) {
  m_heatmap->setTheme(theme);
}

void AnalysisGuidanceView::setReport(const ShownReport& shown) {
  m_shown = shown;
  redraw();
  emit figureChanged();
}

void AnalysisGuidanceView::redraw() {
  if (!m_shown.report) return;
  try {
    figures::drawGuidanceConformity(*m_heatmap, *m_shown.report, m_shown.runName,
                                    m_shown.path.toStdString(), pattern());
    m_drawn = true;
  } catch (const std::exception& e) {
    m_heatmap->setPanels({});
    m_heatmap->setTitle(QString::fromStdString(e.what()));
    m_drawn = false;
  }
}

}  // namespace attnlab::app
