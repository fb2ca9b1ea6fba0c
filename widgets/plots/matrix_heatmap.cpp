#include "widgets/plots/matrix_heatmap.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/plots/axis_labels.h"
#include "widgets/plots/colour_maps.h"

namespace attnlab::widgets {

namespace {
// At most this many tick labels per axis: the 144 x 144 head matrix of BERT-base would
// otherwise print an unreadable label per row.
constexpr int kMaxLabels = 24;

void labelAxis(QCPAxis* axis, const QStringList& given, int n) {
  const QStringList labels = given.size() == n ? given : indexLabels(n);
  setIndexLabels(axis, labels, std::max(1, (n + kMaxLabels - 1) / kMaxLabels));
}
}  // namespace

MatrixHeatmap::MatrixHeatmap(QWidget* parent) : PlotWidget(parent) {
  m_scale = new QCPColorScale(m_plot);
  m_scale->setType(QCPAxis::atRight);
  m_scale->setBarWidth(14);
  m_scale->setGradient(colourGradient(ColourMap::Viridis));
  m_plot->plotLayout()->addElement(1, 1, m_scale);
  m_plot->plotLayout()->setColumnStretchFactor(1, 0.01);
  m_plot->legend->setVisible(false);
  m_rects << m_plot->axisRect();
  setTheme(m_theme);
}

QCPAxisRect* MatrixHeatmap::panelRect(int i) const {
  return i >= 0 && i < m_rects.size() ? m_rects[i] : nullptr;
}

void MatrixHeatmap::setPanels(const QVector<HeatmapPanel>& panels, int columns) {
  m_panels = panels;
  m_columns = std::max(1, columns);
  rebuild();
}

void MatrixHeatmap::setAxisTitles(const QString& columns, const QString& rows) {
  m_columnTitle = columns;
  m_rowTitle = rows;
  rebuild();
}

void MatrixHeatmap::setValueLabel(const QString& label) {
  m_scale->axis()->setLabel(label);
  requestReplot();
}

void MatrixHeatmap::setValueRange(std::optional<std::pair<double, double>> range) {
  m_fixedRange = range;
  rebuild();
}

std::pair<double, double> MatrixHeatmap::valueRange() const {
  const QCPRange r = m_scale->dataRange();
  return {r.lower, r.upper};
}

double MatrixHeatmap::drawnCell(int p, int row, int column) const {
  if (p < 0 || p >= m_maps.size()) return std::nan("");
  return m_maps[p]->data()->cell(column, row);
}

int MatrixHeatmap::notApplicableCells(int p) const {
  return p >= 0 && p < m_naLabels.size() ? static_cast<int>(m_naLabels[p].size()) : 0;
}

void MatrixHeatmap::rebuild() {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_maps.clear();
  m_naLabels.clear();
  for (int i = 1; i < m_rects.size(); ++i) content()->remove(m_rects[i]);
  m_rects.resize(1);
  content()->simplify();
  auto* group = new QCPMarginGroup(m_plot);
  m_scale->setMarginGroup(QCP::msTop | QCP::msBottom, group);

  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const HeatmapPanel& panel : m_panels)
    for (float v : panel.values.values)
      if (std::isfinite(v)) lo = std::min(lo, double(v)), hi = std::max(hi, double(v));
  if (m_fixedRange) lo = m_fixedRange->first, hi = m_fixedRange->second;
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (hi - lo < 1e-12) hi = lo + 1e-6;

  for (int p = 0; p < m_panels.size(); ++p) {
    const HeatmapPanel& panel = m_panels[p];
    QCPAxisRect* rect = p == 0 ? m_rects[0] : new QCPAxisRect(m_plot);
    if (p > 0) {
      content()->addElement(p / m_columns, p % m_columns, rect);
      m_rects << rect;
    }
    rect->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    QCPAxis* top = rect->axis(QCPAxis::atTop);
    top->setVisible(!panel.title.isEmpty());
    top->setTicks(false);
    top->setTickLabels(false);
    top->setBasePen(Qt::NoPen);
    top->setLabel(panel.title);
    x->setLabel(m_columnTitle);
    y->setLabel(m_rowTitle);
    y->setRangeReversed(true);
    x->grid()->setVisible(false);
    y->grid()->setVisible(false);
    auto* map = new QCPColorMap(x, y);
    map->setInterpolate(false);
    map->setColorScale(m_scale);
    m_maps << map;
    QVector<QCPItemText*> na;
    const int rows = panel.values.rows, cols = panel.values.cols;
    if (panel.values.isValid()) {
      QCPColorMapData* d = map->data();
      d->setSize(cols, rows);
      d->setRange(cols > 1 ? QCPRange(0, cols - 1) : QCPRange(-0.5, 0.5),
                  rows > 1 ? QCPRange(0, rows - 1) : QCPRange(-0.5, 0.5));
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
          const double v = panel.values.at(r, c);
          d->setCell(c, r, v);
          if (std::isfinite(v)) continue;
          auto* label = new QCPItemText(m_plot);
          label->setClipAxisRect(rect);
          label->position->setAxes(x, y);
          label->position->setCoords(c, r);
          label->setText(QStringLiteral("n/a"));
          label->setPositionAlignment(Qt::AlignCenter);
          na << label;
        }
      x->setRange(-0.5, cols - 0.5);
      y->setRange(-0.5, rows - 0.5);
      labelAxis(x, panel.columnLabels, cols);
      labelAxis(y, panel.rowLabels, rows);
    }
    m_naLabels << na;
  }
  // After the maps are connected: the scale pushes its gradient and range to them.
  QCPColorGradient gradient = colourGradient(ColourMap::Viridis);
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  m_scale->setGradient(gradient);
  m_scale->setDataRange(QCPRange(lo, hi));
  applyTheme(*m_plot, m_theme);
  applyThemeToContent();
  requestReplot();
}

void MatrixHeatmap::applyThemeToContent() {
  for (const auto& labels : m_naLabels)
    for (QCPItemText* label : labels) label->setColor(m_theme.foreground);
  // The top axis only carries the panel title: no line (applyTheme() gives every axis one).
  for (QCPAxisRect* rect : m_rects) rect->axis(QCPAxis::atTop)->setBasePen(Qt::NoPen);
}

}  // namespace attnlab::widgets
