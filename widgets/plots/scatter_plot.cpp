#include "widgets/plots/scatter_plot.h"

#include <qcustomplot.h>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/plots/colour_maps.h"

namespace attnlab::widgets {

ScatterPlot::ScatterPlot(QWidget* parent) : PlotWidget(parent) {
  // The legend is one row below the panels, clear of the data.
  m_plot->axisRect()->insetLayout()->take(m_plot->legend);
  m_plot->plotLayout()->addElement(2, 0, m_plot->legend);
  m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
  m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  m_plot->legend->setWrap(8);
  m_plot->legend->setVisible(false);
  m_rects << m_plot->axisRect();
  m_plot->setMouseTracking(true);
  connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
    hoverAt(event->position(), event->globalPosition().toPoint());
  });
  setTheme(m_theme);
}

bool ScatterPlot::pointAt(const QPointF& pixel, int* panel, int* series, int* index,
                          double radius) const {
  double best = radius * radius;
  bool found = false;
  for (int p = 0; p < m_panels.size() && p < m_rects.size(); ++p) {
    const QCPAxisRect* rect = m_rects[p];
    if (!rect->rect().contains(pixel.toPoint())) continue;
    const QCPAxis* x = rect->axis(QCPAxis::atBottom);
    const QCPAxis* y = rect->axis(QCPAxis::atLeft);
    for (int s = 0; s < m_panels[p].series.size(); ++s) {
      const XySeries& points = m_panels[p].series[s];
      if (!points.markers) continue;
      for (int i = 0; i < std::min(points.x.size(), points.y.size()); ++i) {
        const double dx = x->coordToPixel(points.x[i]) - pixel.x();
        const double dy = y->coordToPixel(points.y[i]) - pixel.y();
        if (dx * dx + dy * dy > best) continue;  // NaN is never nearer
        best = dx * dx + dy * dy;
        *panel = p, *series = s, *index = static_cast<int>(i);
        found = true;
      }
    }
  }
  return found;
}

void ScatterPlot::setHoverText(std::function<QString(int, int, int)> text) {
  m_hoverTextOf = std::move(text);
}

QString ScatterPlot::hoverAt(const QPointF& pixel, const QPoint& globalPos) {
  int p = 0, s = 0, i = 0;
  const bool found = pointAt(pixel, &p, &s, &i);
  m_hoverText = found && m_hoverTextOf ? m_hoverTextOf(p, s, i) : QString();
  if (m_hoverText.isEmpty()) {
    QToolTip::hideText();
  } else {
    // Escaped: a token such as <s> must show as written, not as rich-text markup.
    QString html = m_hoverText.toHtmlEscaped();
    html.replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    QToolTip::showText(globalPos, QStringLiteral("<p>%1</p>").arg(html), m_plot);
  }
  if (found) emit pointHovered(p, s, i);
  return m_hoverText;
}

QColor ScatterPlot::layerColour(int layer, int layers) {
  static QCPColorGradient gradient = [] {
    QCPColorGradient g = colourGradient(ColourMap::Viridis);
    g.setLevelCount(256);
    return g;
  }();
  // Stop before viridis' pale yellow end, which vanishes on a white background.
  const double t = layers > 1 ? 0.9 * layer / double(layers - 1) : 0.0;
  return QColor::fromRgb(gradient.color(t, QCPRange(0.0, 1.0)));
}

QCPAxisRect* ScatterPlot::panelRect(int i) const {
  return i >= 0 && i < m_rects.size() ? m_rects[i] : nullptr;
}

QCPGraph* ScatterPlot::graph(int p, int s) const {
  if (p < 0 || p >= m_graphs.size() || s < 0 || s >= m_graphs[p].size()) return nullptr;
  return m_graphs[p][s];
}

void ScatterPlot::setPanels(const QVector<XyPanel>& panels, int columns) {
  m_panels = panels;
  m_columns = std::max(1, columns);
  rebuild();
}

void ScatterPlot::setMarker(std::optional<double> x) {
  for (int p = 0; p < m_panels.size(); ++p) m_panels[p].marker = x;
  for (int p = 0; p < m_markers.size(); ++p) {
    QCPGraph* m = m_markers[p];
    if (!m) continue;
    m->setVisible(x.has_value());
    if (x) {
      const QCPRange r = m_rects[p]->axis(QCPAxis::atLeft)->range();
      m->setData({*x, *x}, {r.lower, r.upper}, true);
    }
  }
  requestReplot();
}

void ScatterPlot::rebuild() {
  m_plot->clearPlottables();
  m_graphs.clear();
  m_markers.clear();
  // Keep the first axis rect (QCustomPlot's default); drop the others and re-add.
  for (int i = 1; i < m_rects.size(); ++i) content()->remove(m_rects[i]);
  m_rects.resize(1);
  content()->simplify();
  const int n = std::max(1, static_cast<int>(m_panels.size()));
  auto* group = new QCPMarginGroup(m_plot);
  for (int i = 0; i < n; ++i) {
    QCPAxisRect* rect = i == 0 ? m_rects[0] : new QCPAxisRect(m_plot);
    if (i > 0) {
      content()->addElement(i / m_columns, i % m_columns, rect);
      m_rects << rect;
    }
    rect->setMarginGroup(QCP::msLeft | QCP::msRight | QCP::msTop | QCP::msBottom, group);
  }
  m_plot->legend->clearItems();
  bool legend = false;
  for (int p = 0; p < m_panels.size(); ++p) {
    const XyPanel& panel = m_panels[p];
    QCPAxisRect* rect = m_rects[p];
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    QCPAxis* top = rect->axis(QCPAxis::atTop);
    x->setLabel(panel.xLabel);
    y->setLabel(panel.yLabel);
    top->setVisible(!panel.title.isEmpty());
    top->setTicks(false);
    top->setTickLabels(false);
    top->setBasePen(Qt::NoPen);
    top->setLabel(panel.title);
    if (panel.integerX) {
      auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
      ticker->setTickStep(1.0);
      ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
      x->setTicker(ticker);
    } else {
      x->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin;
    double ymin = xmin, ymax = -xmin;
    QVector<QCPGraph*> graphs;
    for (int s = 0; s < panel.series.size(); ++s) {
      const XySeries& series = panel.series[s];
      auto* g = new QCPGraph(x, y);
      g->setName(series.name);
      g->setData(series.x, series.y, !series.lines);  // lines keep the order given
      // QCustomPlot's adaptive sampling thins dense scatters by pixel column and dropped most
      // of a 10,000-token query-key map; points without lines are drawn every one.
      g->setAdaptiveSampling(series.lines);
      g->setProperty("seriesIndex", s);
      for (int i = 0; i < std::min(series.x.size(), series.y.size()); ++i) {
        if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i])) continue;
        xmin = std::min(xmin, series.x[i]), xmax = std::max(xmax, series.x[i]);
        ymin = std::min(ymin, series.y[i]), ymax = std::max(ymax, series.y[i]);
      }
      if (series.name.isEmpty() || !series.inLegend || p > 0) {
        g->removeFromLegend();
      } else {
        legend = true;
      }
      graphs << g;
    }
    m_graphs << graphs;
    if (!std::isfinite(xmin)) xmin = 0, xmax = 1, ymin = 0, ymax = 1;
    const double padX = std::max(1e-9, (xmax - xmin) * 0.06 + (panel.integerX ? 0.4 : 0.0));
    const double padY = std::max(1e-9, (ymax - ymin) * 0.08);
    if (xmax - xmin < 1e-12) xmin -= 0.5, xmax += 0.5;
    if (ymax - ymin < 1e-12) ymin -= 0.05, ymax += 0.05;
    x->setRange(xmin - padX, xmax + padX);
    y->setRange(ymin - padY, ymax + padY);
    // Every panel gets its marker graph, hidden until setMarker() places it.
    auto* marker = new QCPGraph(x, y);
    marker->removeFromLegend();
    marker->setProperty("marker", true);
    marker->setVisible(panel.marker.has_value());
    if (panel.marker)
      marker->setData({*panel.marker, *panel.marker}, {ymin - padY, ymax + padY}, true);
    m_markers << marker;
  }
  m_plot->legend->setVisible(legend);
  applyTheme(*m_plot, m_theme);
  applyThemeToContent();
  requestReplot();
}

void ScatterPlot::afterLayout() {
  // Equal aspect for embeddings: widen the shorter range so one unit has the same length
  // on both axes at whatever size the plot is drawn or exported.
  for (int p = 0; p < m_panels.size() && p < m_rects.size(); ++p) {
    if (!m_panels[p].equalAspect) continue;
    QCPAxisRect* rect = m_rects[p];
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    if (rect->width() <= 0 || rect->height() <= 0) continue;
    const double perPixelX = x->range().size() / rect->width();
    const double perPixelY = y->range().size() / rect->height();
    if (perPixelX > perPixelY) {
      y->setScaleRatio(x, 1.0);
    } else {
      x->setScaleRatio(y, 1.0);
    }
  }
}

void ScatterPlot::applyThemeToContent() {
  for (int p = 0; p < m_graphs.size(); ++p) {
    for (int s = 0; s < m_graphs[p].size(); ++s) {
      const XySeries& series = m_panels[p].series[s];
      QColor c = series.colour.isValid() ? series.colour : m_theme.seriesColour(s);
      c.setAlphaF(std::clamp(series.opacity, 0.05, 1.0));
      QCPGraph* g = m_graphs[p][s];
      g->setLineStyle(series.lines ? QCPGraph::lsLine : QCPGraph::lsNone);
      g->setPen(QPen(c, series.lines ? 1.6 : 1.0));
      g->setScatterStyle(series.markers ? QCPScatterStyle(QCPScatterStyle::ssDisc, c, c, 6)
                                        : QCPScatterStyle(QCPScatterStyle::ssNone));
    }
  }
  for (QCPGraph* m : m_markers)
    if (m) m->setPen(QPen(m_theme.accent, 2.0, Qt::DashLine));
  // The top axis only carries the panel title: no line (applyTheme() gives every axis one).
  for (QCPAxisRect* rect : m_rects) rect->axis(QCPAxis::atTop)->setBasePen(Qt::NoPen);
}

}  // namespace attnlab::widgets
