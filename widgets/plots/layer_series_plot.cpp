#include "widgets/plots/layer_series_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace attnlab::widgets {

LayerSeriesPlot::LayerSeriesPlot(QWidget* parent) : PlotWidget(parent) {
  m_plot->xAxis->setLabel(tr("step"));
  // The legend goes right of the plot: twelve layer lines leave no empty corner for it. It
  // sits at the top of a column of its own; an empty element below takes the rest of the
  // height, which the legend's rows would otherwise spread over.
  m_plot->axisRect()->insetLayout()->take(m_plot->legend);
  auto* side = new QCPLayoutGrid;
  content()->addElement(0, 2, side);
  side->addElement(0, 0, m_plot->legend);
  side->addElement(1, 0, new QCPLayoutElement(m_plot));
  side->setRowStretchFactor(0, 0.0001);
  side->setRowStretchFactor(1, 1);
  side->setRowSpacing(0);
  m_plot->legend->setVisible(true);
  m_scale = new QCPColorScale(m_plot);
  m_scale->setType(QCPAxis::atRight);
  m_scale->setBarWidth(14);
  content()->addElement(0, 1, m_scale);
  auto* group = new QCPMarginGroup(m_plot);
  m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  setTheme(m_theme);
}

QString LayerSeriesPlot::valueLabel() const {
  return m_unit.isEmpty() ? m_quantity : QStringLiteral("%1 (%2)").arg(m_quantity, m_unit);
}

void LayerSeriesPlot::setSeries(const QString& quantity, const QString& unit,
                                const std::vector<double>& steps, const Matrix& values,
                                const QStringList& labels) {
  m_quantity = quantity;
  m_unit = unit;
  m_steps = steps;
  m_values = values;
  m_labels = labels;
  while (m_labels.size() < m_values.rows) m_labels << QStringLiteral("L%1").arg(m_labels.size());
  rebuild();
}

void LayerSeriesPlot::setView(LayerSeriesView view) {
  m_view = view;
  rebuild();
}

void LayerSeriesPlot::setRowAxisTitle(const QString& title) {
  m_rowTitle = title;
  if (m_view == LayerSeriesView::Heatmap) {
    m_plot->yAxis->setLabel(m_rowTitle);
    requestReplot();
  }
}

void LayerSeriesPlot::setColourMap(ColourMap map) {
  m_colourMap = map;
  rebuild();
}

int LayerSeriesPlot::heatmapColumns() const {
  return m_map ? m_map->data()->keySize() : 0;
}

void LayerSeriesPlot::rebuild() {
  m_plot->clearPlottables();
  m_map = nullptr;
  const int rows = m_values.rows;
  const int n = std::min<int>(m_values.cols, static_cast<int>(m_steps.size()));
  const bool heat = m_view == LayerSeriesView::Heatmap;
  m_scale->setVisible(heat);
  m_plot->legend->setVisible(!heat);
  // Invisible elements still take their columns: shrink the one not in use to nothing.
  content()->setColumnStretchFactor(1, 0.0001);
  content()->setColumnStretchFactor(2, 0.0001);
  m_scale->setMaximumSize(heat ? QWIDGETSIZE_MAX : 0, QWIDGETSIZE_MAX);
  m_scale->setMinimumSize(heat ? 60 : 0, 0);
  m_plot->legend->setMaximumSize(heat ? 0 : QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
  if (rows == 0 || n == 0) return;
  const QCPColorGradient gradient = colourGradient(m_colourMap);
  if (!heat) {
    m_plot->yAxis->setRangeReversed(false);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    m_plot->yAxis->setLabel(valueLabel());
    QCPColorGradient g = gradient;
    for (int r = 0; r < rows; ++r) {
      auto* graph = m_plot->addGraph();
      graph->setName(m_labels.value(r));
      QVector<double> x(n), y(n);
      for (int i = 0; i < n; ++i) x[i] = m_steps[i], y[i] = m_values.at(r, i);
      graph->setData(x, y, true);
      // Layers take colours along the (perceptually ordered) map, so order reads as order;
      // the top 10% of viridis is too light on white and is skipped.
      const double t = rows > 1 ? 0.9 * r / (rows - 1) : 0.0;
      graph->setPen(QPen(QColor::fromRgb(g.color(t, QCPRange(0, 1))), 1.8));
    }
    m_plot->rescaleAxes();
    const QCPRange yr = m_plot->yAxis->range();
    const double pad = std::max(1e-9, 0.05 * yr.size());
    m_plot->yAxis->setRange(yr.lower - pad, yr.upper + pad);
  } else {
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    m_map->setColorScale(m_scale);
    m_scale->setGradient(gradient);  // the scale hands its gradient to the map
    // A colour map needs evenly spaced columns. Logged steps usually are; uneven ones are
    // resampled (each column shows the latest value at or before its step).
    const double first = m_steps.front(), last = m_steps[n - 1];
    bool uniform = n < 3;
    if (!uniform) {
      const double d = (last - first) / (n - 1);
      uniform = true;
      for (int i = 1; i < n && uniform; ++i)
        uniform = std::abs((m_steps[i] - m_steps[i - 1]) - d) <= 1e-6 * std::max(1.0, std::abs(d));
    }
    const int cols = uniform ? n : std::min(1000, 2 * n);
    QCPColorMapData* d = m_map->data();
    d->setSize(cols, rows);
    d->setRange(cols > 1 ? QCPRange(first, last) : QCPRange(first - 0.5, first + 0.5),
                rows > 1 ? QCPRange(0, rows - 1) : QCPRange(-0.5, 0.5));
    int src = 0;
    for (int c = 0; c < cols; ++c) {
      int idx = c;
      if (!uniform) {
        const double step = first + (last - first) * c / (cols - 1);
        while (src + 1 < n && m_steps[src + 1] <= step) ++src;
        idx = src;
      }
      for (int r = 0; r < rows; ++r) d->setCell(c, r, m_values.at(r, idx));
    }
    m_map->rescaleDataRange(true);
    m_scale->axis()->setLabel(valueLabel());
    const double half = cols > 1 ? 0.5 * (last - first) / (cols - 1) : 0.5;
    m_plot->xAxis->setRange(first - half, last + half);
    m_plot->yAxis->setRange(-0.5, rows - 0.5);
    m_plot->yAxis->setRangeReversed(false);  // bottom layer at the bottom, as in the papers
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const int every = std::max(1, rows / 16);
    for (int r = 0; r < rows; r += every) ticker->addTick(r, m_labels.value(r));
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setLabel(m_rowTitle);
  }
  applyTheme(*m_plot, m_theme);
  requestReplot();
}

void LayerSeriesPlot::applyThemeToContent() {
  m_plot->xAxis->grid()->setVisible(m_view == LayerSeriesView::Lines);
  m_plot->yAxis->grid()->setVisible(m_view == LayerSeriesView::Lines);
}

}  // namespace attnlab::widgets
