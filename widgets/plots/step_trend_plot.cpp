#include "widgets/plots/step_trend_plot.h"

#include <qcustomplot.h>

#include <algorithm>

#include <QFontMetrics>
#include <limits>

namespace attnlab::widgets {

namespace {
// More markers than this crowd their labels: the lines stay, the words go.
constexpr int kMaxMarkerLabels = 8;
constexpr int kLegendColumns = 5;
constexpr int kLegendColumnSpacing = 8;
const QMargins kLegendItemMargins(4, 1, 4, 1);
}  // namespace

StepTrendPlot::StepTrendPlot(QWidget* parent) : PlotWidget(parent) {
  m_plot->xAxis->setLabel(tr("step"));
  m_plot->yAxis->setLabel(tr("value"));
  // The legend is one block under the plot, clear of the lines.
  m_plot->axisRect()->insetLayout()->take(m_plot->legend);
  m_plot->plotLayout()->addElement(2, 0, m_plot->legend);
  m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
  m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  m_plot->legend->setWrap(kLegendColumns);
  m_plot->legend->setVisible(false);
  // A compact legend: small icons, tight rows, so that a short plot keeps its axis.
  m_plot->legend->setIconSize(20, 10);
  m_plot->legend->setIconTextPadding(4);
  m_plot->legend->setRowSpacing(0);
  m_plot->legend->setColumnSpacing(kLegendColumnSpacing);
  m_cursorLine = new QCPItemStraightLine(m_plot);
  m_cursorLine->setVisible(false);
  m_referenceLine = new QCPItemStraightLine(m_plot);
  m_referenceLine->setVisible(false);
  m_referenceText = new QCPItemText(m_plot);
  m_referenceText->setVisible(false);
  m_referenceText->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  m_referenceText->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  m_referenceText->position->setTypeY(QCPItemPosition::ptPlotCoords);
  setTheme(m_theme);
}

void StepTrendPlot::setLines(const std::vector<double>& steps, const QVector<TrendLine>& lines) {
  m_steps = steps;
  m_lines = lines;
  rebuild();
}

void StepTrendPlot::setMarkers(const QVector<TrendMarker>& markers) {
  m_markers = markers;
  placeMarkers();
  applyThemeToContent();
  requestReplot();
}

void StepTrendPlot::setCursorStep(double step) {
  m_cursor = step;
  placeCursor();
  requestReplot();
}

void StepTrendPlot::setReferenceLine(std::optional<double> value, const QString& label) {
  m_reference = value;
  m_referenceLabel = label;
  m_referenceLine->setVisible(value.has_value());
  m_referenceText->setVisible(value.has_value() && !label.isEmpty());
  if (value) {
    m_referenceLine->point1->setCoords(0, *value);
    m_referenceLine->point2->setCoords(1, *value);
    m_referenceText->position->setCoords(0.99, *value);
    m_referenceText->setText(label);
  }
  fitAxes();
  requestReplot();
}

void StepTrendPlot::setYLabel(const QString& quantity, const QString& unit) {
  m_plot->yAxis->setLabel(unit.isEmpty() ? quantity
                                         : QStringLiteral("%1 (%2)").arg(quantity, unit));
  requestReplot();
}

QString StepTrendPlot::yLabel() const {
  return m_plot->yAxis->label();
}

void StepTrendPlot::setLogY(bool on) {
  if (on == m_logY) return;
  m_logY = on;
  m_plot->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (on)
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  else
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  fitAxes();
  requestReplot();
}

void StepTrendPlot::setMaxLegendEntries(int n) {
  m_maxLegend = n;
  rebuild();
}

void StepTrendPlot::setYRange(std::optional<std::pair<double, double>> range) {
  m_yRange = range;
  fitAxes();
  requestReplot();
}

void StepTrendPlot::afterLayout() {
  QCPLegend* legend = m_plot->legend;
  if (!legend->visible() || m_lines.isEmpty()) return;
  // As many columns as entries of the widest name fit across the plot: no name is cut.
  const QFontMetrics metrics(legend->font());
  int widest = 0;
  for (const TrendLine& line : m_lines)
    widest = std::max(widest, metrics.horizontalAdvance(line.name));
  const int entry = widest + legend->iconSize().width() + legend->iconTextPadding() +
                    kLegendItemMargins.left() + kLegendItemMargins.right() + kLegendColumnSpacing;
  const int columns = std::clamp(m_plot->viewport().width() / std::max(1, entry), 1,
                                 static_cast<int>(m_lines.size()));
  if (columns == legend->wrap()) return;
  legend->setWrap(columns);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  relayout();
}

QStringList StepTrendPlot::lineNames() const {
  QStringList names;
  for (const TrendLine& l : m_lines) names << l.name;
  return names;
}

std::vector<double> StepTrendPlot::lineValues(const QString& name) const {
  for (const TrendLine& l : m_lines)
    if (l.name == name) return l.values;
  return {};
}

QVector<double> StepTrendPlot::markerSteps() const {
  QVector<double> steps;
  for (const TrendMarker& m : m_markers) steps << m.step;
  return steps;
}

bool StepTrendPlot::legendShown() const {
  return m_plot->legend->visible();
}

void StepTrendPlot::rebuild() {
  m_plot->clearGraphs();
  const QVector<double> keys(m_steps.begin(), m_steps.end());
  for (const TrendLine& line : m_lines) {
    QCPGraph* graph = m_plot->addGraph();
    graph->setName(line.name);
    QVector<double> values(keys.size(), std::numeric_limits<double>::quiet_NaN());
    for (int i = 0; i < keys.size() && i < static_cast<int>(line.values.size()); ++i) {
      const double v = line.values[static_cast<std::size_t>(i)];
      // A log axis cannot show zero or less: those points are left out.
      values[i] = m_logY && !(v > 0) ? std::numeric_limits<double>::quiet_NaN() : v;
    }
    graph->setData(keys, values, true);
    // One logged step is a point, not a line.
    if (keys.size() == 1) graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
  }
  for (int i = 0; i < m_plot->legend->itemCount(); ++i)
    if (QCPAbstractLegendItem* item = m_plot->legend->item(i)) item->setMargins(kLegendItemMargins);
  const bool legend = !m_lines.isEmpty() && m_lines.size() <= m_maxLegend;
  m_plot->legend->setVisible(legend);
  // The legend's row takes no room while it is hidden.
  m_plot->plotLayout()->setRowSpacing(legend ? 5 : 0);
  fitAxes();
  placeMarkers();
  placeCursor();
  applyTheme(*m_plot, m_theme);
  applyThemeToContent();
  requestReplot();
}

void StepTrendPlot::fitAxes() {
  if (m_steps.empty()) {
    m_plot->xAxis->setRange(0, 1);
  } else if (m_steps.front() == m_steps.back()) {
    m_plot->xAxis->setRange(m_steps.front() - 0.5, m_steps.front() + 0.5);
  } else {
    m_plot->xAxis->setRange(m_steps.front(), m_steps.back());
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const TrendLine& line : m_lines)
    for (double v : line.values)
      if (std::isfinite(v) && (!m_logY || v > 0)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (m_reference && (!m_logY || *m_reference > 0))
    lo = std::min(lo, *m_reference), hi = std::max(hi, *m_reference);
  if (!std::isfinite(lo)) {
    lo = m_logY ? 0.1 : 0.0;
    hi = m_logY ? 10.0 : 1.0;
  }
  if (m_yRange) {
    const double pad = 0.04 * (m_yRange->second - m_yRange->first);
    m_plot->yAxis->setRange(m_yRange->first - pad, m_yRange->second + pad);
  } else if (m_logY) {
    m_plot->yAxis->setRange(lo / 1.5, hi * 1.5);
  } else {
    const double pad = hi > lo ? 0.06 * (hi - lo) : std::max(0.05, std::abs(hi) * 0.05);
    m_plot->yAxis->setRange(lo - pad, hi + pad);
  }
}

void StepTrendPlot::placeMarkers() {
  for (QCPItemStraightLine* l : m_markerLines) m_plot->removeItem(l);
  for (QCPItemText* t : m_markerTexts) m_plot->removeItem(t);
  m_markerLines.clear();
  m_markerTexts.clear();
  const bool labels = m_markers.size() <= kMaxMarkerLabels;
  for (const TrendMarker& m : m_markers) {
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(m.step, 0);
    line->point2->setCoords(m.step, 1);
    m_markerLines << line;
    if (!labels || m.label.isEmpty()) continue;
    auto* text = new QCPItemText(m_plot);
    text->position->setTypeX(QCPItemPosition::ptPlotCoords);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(m.step, 0.0);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    text->setText(m.label);
    text->setPadding(QMargins(3, 1, 3, 1));
    text->setProperty("marker", static_cast<int>(m_markerLines.size() - 1));
    m_markerTexts << text;
  }
}

void StepTrendPlot::placeCursor() {
  m_cursorLine->setVisible(std::isfinite(m_cursor));
  if (!std::isfinite(m_cursor)) return;
  m_cursorLine->point1->setCoords(m_cursor, 0);
  m_cursorLine->point2->setCoords(m_cursor, 1);
}

void StepTrendPlot::applyThemeToContent() {
  for (int i = 0; i < m_plot->graphCount() && i < m_lines.size(); ++i) {
    const TrendLine& line = m_lines[i];
    const QColor colour = line.colour.isValid() ? line.colour : m_theme.seriesColour(i);
    QPen pen(colour, line.bold ? 2.6 : 1.4, line.dashed ? Qt::DashLine : Qt::SolidLine);
    m_plot->graph(i)->setPen(pen);
    if (m_lines.size() > 1 && m_steps.size() == 1)
      m_plot->graph(i)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 6));
  }
  const auto markerColour = [this](int i) {
    return m_markers[i].colour.isValid() ? m_markers[i].colour : m_theme.classHigh;
  };
  for (int i = 0; i < m_markers.size() && i < m_markerLines.size(); ++i)
    m_markerLines[i]->setPen(QPen(markerColour(i), 1.6, Qt::DashLine));
  for (QCPItemText* text : m_markerTexts) {
    const int i = text->property("marker").toInt();
    if (i >= 0 && i < m_markers.size()) text->setColor(markerColour(i));
    // Readable over the lines it crosses.
    QColor back = m_theme.background;
    back.setAlpha(210);
    text->setBrush(back);
  }
  m_cursorLine->setPen(QPen(m_theme.foreground, 1.2, Qt::DotLine));
  m_referenceLine->setPen(QPen(m_theme.foreground, 1.0, Qt::DashDotLine));
  m_referenceText->setColor(m_theme.foreground);
}

}  // namespace attnlab::widgets
