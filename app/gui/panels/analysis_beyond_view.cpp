#include "app/gui/panels/analysis_beyond_view.h"

#include "analysis/runs/analysis_report.h"
#include "figures/beyond_figures.h"
#include "figures/pruning_figures.h"
#include "widgets/plots/matrix_heatmap.h"
#include "widgets/plots/scatter_plot.h"

#include <QLabel>
#include <QStackedLayout>

#include <exception>

namespace attnlab::app {

namespace {

const char* figureOf(AnalysisBeyondView::Kind kind) {
  switch (kind) {
    case AnalysisBeyondView::Kind::Rollout:
      return "rollout-spread";
    case AnalysisBeyondView::Kind::Norms:
      return "norm-weight-correlation";
    case AnalysisBeyondView::Kind::Lens:
      return "logit-lens";
    case AnalysisBeyondView::Kind::HeadImportance:
      return "head-importance";
    case AnalysisBeyondView::Kind::Pruning:
      return "head-pruning";
  }
  return "";  // unreachable: -Werror=switch keeps the switch complete
}

}  // namespace

AnalysisBeyondView::AnalysisBeyondView(Kind kind, QWidget* parent)
    : AnalysisView(parent), m_kind(kind) {
  m_stack = new QStackedLayout(this);
  m_stack->setContentsMargins(0, 0, 0, 0);
  if (kind == Kind::Norms || kind == Kind::HeadImportance) {
    m_heatmap = new widgets::MatrixHeatmap(this);
    m_heatmap->setObjectName(kind == Kind::Norms ? QStringLiteral("normCorrelationHeatmap")
                                                 : QStringLiteral("headImportanceHeatmap"));
    m_stack->addWidget(m_heatmap);
  } else {
    m_lines = new widgets::ScatterPlot(this);
    m_lines->setObjectName(kind == Kind::Rollout ? QStringLiteral("rolloutSpreadPlot")
                           : kind == Kind::Lens  ? QStringLiteral("logitLensPlot")
                                                 : QStringLiteral("pruningCurvesPlot"));
    m_stack->addWidget(m_lines);
  }
  m_missing = new QLabel(this);
  m_missing->setObjectName(QStringLiteral("beyondMissing"));
  m_missing->setWordWrap(true);
  m_missing->setAlignment(Qt::AlignCenter);
  m_missing->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_stack->addWidget(m_missing);
}

QString AnalysisBeyondView::figureName() const {
  return m_drawn ? QString::fromLatin1(figureOf(m_kind)) : QString();
}

widgets::PlotWidget* AnalysisBeyondView::shownPlot() const {
  if (!m_drawn) return nullptr;
  return m_heatmap != nullptr ? static_cast<widgets::PlotWidget*>(m_heatmap) : m_lines;
}

QString AnalysisBeyondView::missingText() const {
  return m_drawn ? QString() : m_missing->text();
}

void AnalysisBeyondView::setTheme(const widgets::Theme& theme) {
  if (m_heatmap != nullptr) m_heatmap->setTheme(theme);
  if (m_lines != nullptr) m_lines->setTheme(theme);
}

void AnalysisBeyondView::setReport(const ShownReport& shown) {
  m_shown = shown;
  draw();
  emit figureChanged();
}

void AnalysisBeyondView::draw() {
  if (!m_shown.report) return;
  const figures::LabelledReport run{m_shown.report.get(), m_shown.runName,
                                    m_shown.path.toStdString()};
  try {
    switch (m_kind) {
      case Kind::Rollout:
        figures::drawRolloutSpread(*m_lines, {run});
        break;
      case Kind::Norms:
        figures::drawNormCorrelation(*m_heatmap, run);
        break;
      case Kind::Lens:
        figures::drawLogitLens(*m_lines, {run});
        break;
      case Kind::HeadImportance:
        figures::drawHeadImportance(*m_heatmap, run);
        break;
      case Kind::Pruning:
        figures::drawPruningCurves(*m_lines, {run});
        break;
    }
    m_drawn = true;
    m_stack->setCurrentIndex(0);
  } catch (const std::exception& e) {
    m_drawn = false;
    m_missing->setText(QString::fromStdString(e.what()));
    m_stack->setCurrentWidget(m_missing);
  }
}

}  // namespace attnlab::app
