#include "app/gui/panels/analysis_similarity_view.h"

#include "analysis/runs/analysis_report.h"
#include "figures/head_figures.h"
#include "widgets/plots/matrix_heatmap.h"
#include "widgets/plots/scatter_plot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QStackedLayout>
#include <QVBoxLayout>

#include <exception>

namespace attnlab::app {

AnalysisSimilarityView::AnalysisSimilarityView(QWidget* parent) : AnalysisView(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Show"), this));
  m_display = new QComboBox(this);
  m_display->setObjectName(QStringLiteral("similarityDisplayBox"));
  m_display->addItem(QStringLiteral("JSD between every two heads (matrix)"));
  m_display->addItem(QStringLiteral("Heads in 2-D by classical MDS (Clark et al. Fig. 6)"));
  bar->addWidget(m_display);
  bar->addStretch(1);
  layout->addLayout(bar);
  m_stack = new QStackedLayout;
  layout->addLayout(m_stack, 1);
  m_matrix = new widgets::MatrixHeatmap(this);
  m_matrix->setObjectName(QStringLiteral("headJsdMatrix"));
  m_embedding = new widgets::ScatterPlot(this);
  m_embedding->setObjectName(QStringLiteral("headJsdMds"));
  m_missing = new QLabel(this);
  m_missing->setObjectName(QStringLiteral("similarityMissing"));
  m_missing->setTextFormat(Qt::PlainText);
  m_missing->setWordWrap(true);
  m_missing->setAlignment(Qt::AlignCenter);
  m_missing->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_stack->addWidget(m_matrix);
  m_stack->addWidget(m_embedding);
  m_stack->addWidget(m_missing);
  connect(m_display, &QComboBox::currentIndexChanged, this, &AnalysisSimilarityView::setDisplay);
}

void AnalysisSimilarityView::setDisplay(int index) {
  if (m_display->currentIndex() != index) m_display->setCurrentIndex(index);  // re-enters
  if (index == 1) drawEmbedding();
  if (m_hasPairs) m_stack->setCurrentIndex(index == 1 ? 1 : 0);
  emit figureChanged();
}

void AnalysisSimilarityView::drawEmbedding() {
  // The MDS (a dense eigenproblem, about 0.13 s for 144 heads) only once the map is asked
  // for, so opening a report does not wait for it.
  if (!m_hasPairs || !m_embeddingStale || !m_shown.report) return;
  try {
    m_mds = figures::drawHeadJsdMds(*m_embedding, *m_shown.report, m_shown.runName,
                                    m_shown.path.toStdString());
  } catch (const std::exception& e) {
    m_embedding->setPanels({});
    m_embedding->setTitle(QString::fromStdString(e.what()));
  }
  m_embeddingStale = false;
}

QString AnalysisSimilarityView::figureName() const {
  if (!m_hasPairs) return {};
  return m_display->currentIndex() == 1 ? QStringLiteral("head-jsd-mds")
                                        : QStringLiteral("head-jsd-matrix");
}

widgets::PlotWidget* AnalysisSimilarityView::shownPlot() const {
  if (!m_hasPairs) return nullptr;
  return m_display->currentIndex() == 1 ? static_cast<widgets::PlotWidget*>(m_embedding)
                                        : static_cast<widgets::PlotWidget*>(m_matrix);
}

QString AnalysisSimilarityView::missingText() const {
  return m_hasPairs ? QString() : m_missing->text();
}

void AnalysisSimilarityView::setTheme(const widgets::Theme& theme) {
  m_matrix->setTheme(theme);
  m_embedding->setTheme(theme);
}

void AnalysisSimilarityView::setReport(const ShownReport& shown) {
  const std::string where = shown.path.toStdString();
  m_shown = shown;
  m_hasPairs = !shown.report->statistics.pairwiseJsd.empty();
  m_mds = {};
  m_embeddingStale = true;
  try {
    if (m_hasPairs) figures::drawHeadJsdMatrix(*m_matrix, *shown.report, shown.runName, where);
  } catch (const std::exception& e) {
    m_hasPairs = false;
    m_missing->setText(QString::fromStdString(e.what()));
  }
  if (!m_hasPairs) {
    if (shown.report->statistics.pairwiseJsd.empty())
      m_missing->setText(QStringLiteral(
          "This report has no JSD between every two heads: it was analysed with --pairwise 0.\n"
          "Run `attnlab-cli analyze RUN --pairwise 64` (the JSD over the first 64 sequences; "
          "`attnlab-cli analyze --help` lists the options) and open the new report."));
    m_stack->setCurrentWidget(m_missing);
  } else {
    if (m_display->currentIndex() == 1) drawEmbedding();
    m_stack->setCurrentIndex(m_display->currentIndex() == 1 ? 1 : 0);
  }
  m_display->setEnabled(m_hasPairs);
  emit figureChanged();
}

}  // namespace attnlab::app
