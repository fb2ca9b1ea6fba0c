#include "widgets/plots/attention_heatmap.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/plots/axis_labels.h"

namespace attnlab::widgets {
namespace {

// A single-cell axis still needs a non-empty range: QCPColorMap then spans the range.
QCPRange cellRange(int n) {
  return n > 1 ? QCPRange(0, n - 1) : QCPRange(-0.5, 0.5);
}

/// The staircase between the band's cells and those outside it, on one side of the diagonal:
/// above it (upper) the keys beyond q + half, below it those before q - half. Cell (q, k) is
/// centred on (k, q), so the edge runs along x = q +- (half + 0.5); rows where it would lie on
/// or beyond the matrix's border have none.
QVector<QPointF> bandStaircase(int rows, int cols, int half, bool upper) {
  QVector<QPointF> points;
  for (int q = 0; q < rows; ++q) {
    const double x = upper ? q + half + 0.5 : q - half - 0.5;
    if (x >= cols - 0.5 || x <= -0.5) continue;
    points.append(QPointF(x, q - 0.5));
    points.append(QPointF(x, q + 0.5));
  }
  return points;
}

QString quoted(const QStringList& tokens, int i) {
  if (i < 0 || i >= tokens.size()) return QString::number(i);
  return QStringLiteral("%1 \u201c%2\u201d").arg(i).arg(tokens.at(i));
}

}  // namespace

AttentionHeatmap::AttentionHeatmap(QWidget* parent) : PlotWidget(parent) {
  QCPAxisRect* rect = m_plot->axisRect();
  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  m_map->setInterpolate(false);  // one cell = one block of colour, no blur between tokens
  m_map->setTightBoundary(false);
  m_guidanceMap = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  m_guidanceMap->setInterpolate(false);
  m_guidanceMap->setVisible(false);
  for (auto*& edge : m_bandEdges) {
    edge = new QCPCurve(m_plot->xAxis, m_plot->yAxis);
    edge->setVisible(false);
    edge->setSelectable(QCP::stNone);
  }

  m_scale = new QCPColorScale(m_plot);
  content()->addElement(0, 1, m_scale);
  m_scale->setType(QCPAxis::atRight);
  m_scale->setBarWidth(14);
  m_map->setColorScale(m_scale);
  // Keep the colour bar as tall as the matrix.
  auto* group = new QCPMarginGroup(m_plot);
  rect->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);

  m_plot->yAxis->setRangeReversed(true);  // first query on top, as in a matrix
  m_plot->xAxis->setTickLabelRotation(90);
  m_plot->xAxis->setLabel(QStringLiteral("key token"));
  m_plot->yAxis->setLabel(QStringLiteral("query token"));
  m_plot->xAxis->grid()->setVisible(false);
  m_plot->yAxis->grid()->setVisible(false);
  m_scale->axis()->setLabel(QStringLiteral("attention probability"));

  m_readout = new QCPItemText(m_plot);
  m_readout->setLayer(QStringLiteral("overlay"));
  m_readout->setClipToAxisRect(false);
  m_readout->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_readout->position->setCoords(0.0, 0.0);
  m_readout->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  m_readout->setPadding(QMargins(5, 3, 5, 3));
  m_readout->setVisible(false);

  m_plot->setMouseTracking(true);
  connect(m_plot, &QCustomPlot::mouseMove, this,
          [this](QMouseEvent* event) { hoverAt(event->position()); });

  setColourMap(m_colourMap);
  setTheme(m_theme);
  setMatrix(Matrix(1, 1, 0.0f));
}

void AttentionHeatmap::setMatrix(const float* values, int queries, int keys) {
  setMatrix(Matrix(queries, keys,
                   std::vector<float>(values, values + static_cast<std::size_t>(queries) * keys)));
}

void AttentionHeatmap::setMatrix(const Matrix& attention) {
  if (!attention.isValid()) return;
  const bool shapeChanged = attention.rows != m_matrix.rows || attention.cols != m_matrix.cols;
  m_matrix = attention;
  if (m_queryTokens.size() != m_matrix.rows) m_queryTokens = indexLabels(m_matrix.rows);
  if (m_keyTokens.size() != m_matrix.cols) m_keyTokens = indexLabels(m_matrix.cols);
  if (shapeChanged && m_guidance.isValid()) m_guidance = Matrix();
  fillColourMap();
  if (shapeChanged) {
    fillGuidance();
    fillBand();
    updateAxes();
  }
}

void AttentionHeatmap::setBand(int halfWidth) {
  m_bandHalfWidth = halfWidth < 0 ? -1 : halfWidth;
  fillBand();
}

QVector<QPointF> AttentionHeatmap::bandEdge(bool upper) const {
  if (m_bandHalfWidth < 0) return {};
  return bandStaircase(m_matrix.rows, m_matrix.cols, m_bandHalfWidth, upper);
}

void AttentionHeatmap::fillBand() {
  for (int side = 0; side < 2; ++side) {
    const QVector<QPointF> points = bandEdge(side == 1);
    QVector<QCPCurveData> data;
    data.reserve(points.size());
    for (int i = 0; i < points.size(); ++i)
      data.append(QCPCurveData(i, points[i].x(), points[i].y()));
    m_bandEdges[side]->data()->set(data, true);
    m_bandEdges[side]->setVisible(!data.isEmpty());
  }
}

void AttentionHeatmap::fillColourMap() {
  QCPColorMapData* data = m_map->data();
  const int q = m_matrix.rows, k = m_matrix.cols;
  if (data->keySize() != k || data->valueSize() != q) data->setSize(k, q);
  data->setRange(cellRange(k), cellRange(q));
  // One pass: the range and the smallest positive value (the log floor) come for free.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, minPos = lo;
  const float* v = m_matrix.values.data();
  for (int r = 0; r < q; ++r) {
    for (int c = 0; c < k; ++c) {
      const double x = v[static_cast<std::size_t>(r) * k + c];
      if (!std::isfinite(x)) {
        data->setCell(c, r, std::numeric_limits<double>::quiet_NaN());
        continue;
      }
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      if (x > 0) minPos = std::min(minPos, x);
      data->setCell(c, r, x);
    }
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  m_dataMin = lo;
  m_dataMax = hi;
  m_minPositive = std::isfinite(minPos) ? minPos : 1.0;
  if (logActive()) {
    // QCP's log colouring takes ln(value / lower): zero and negative cells are clamped to
    // the floor so they draw in the lowest colour instead of an undefined one.
    const double floor = std::max(m_minPositive, std::max(hi, 1e-30) * 1e-4);
    for (int r = 0; r < q; ++r)
      for (int c = 0; c < k; ++c) {
        const double x = v[static_cast<std::size_t>(r) * k + c];
        if (std::isfinite(x) && x < floor) data->setCell(c, r, floor);
      }
  }
  applyRange();
}

void AttentionHeatmap::applyRange() {
  double lo = m_fixedRange ? m_rangeLo : m_dataMin;
  double hi = m_fixedRange ? m_rangeHi : m_dataMax;
  if (m_diverging) {
    // Symmetric around 0, so the gradient's white centre is exactly 0.
    double m = std::max(std::abs(lo), std::abs(hi));
    if (!(m > 0) || !std::isfinite(m)) m = 1.0;
    lo = -m;
    hi = m;
  } else if (m_logScale) {
    const double top = std::max(hi, 1e-30);
    lo = std::max(lo, std::max(m_minPositive, top * 1e-4));
    if (!(lo < top)) lo = top / 10;
    hi = top;
  } else if (!(hi > lo)) {
    hi = lo + 1.0;
  }
  m_map->setDataRange(QCPRange(lo, hi));
}

void AttentionHeatmap::setTokens(const QStringList& queryTokens, const QStringList& keyTokens) {
  m_queryTokens = queryTokens.size() == m_matrix.rows ? queryTokens : indexLabels(m_matrix.rows);
  m_keyTokens = keyTokens.size() == m_matrix.cols ? keyTokens : indexLabels(m_matrix.cols);
  updateAxes();
}

void AttentionHeatmap::updateAxes() {
  m_plot->xAxis->setRange(-0.5, m_matrix.cols - 0.5);
  m_plot->yAxis->setRange(-0.5, m_matrix.rows - 0.5);
  updateLabelSteps();
  setIndexLabels(m_plot->xAxis, m_keyTokens, m_keyStep);
  setIndexLabels(m_plot->yAxis, m_queryTokens, m_queryStep);
}

bool AttentionHeatmap::updateLabelSteps() {
  const QRect r = m_plot->axisRect()->rect();
  // Before the first layout the axis rect is empty; assume most of the widget.
  const double w = r.width() > 10 ? r.width() : m_plot->width() * 0.7;
  const double h = r.height() > 10 ? r.height() : m_plot->height() * 0.7;
  const double perLabel = QFontMetricsF(m_plot->xAxis->tickLabelFont()).height() + 2.0;
  const int keyStep = labelStep(m_matrix.cols, w, perLabel);
  const int queryStep = labelStep(m_matrix.rows, h, perLabel);
  const bool changed = keyStep != m_keyStep || queryStep != m_queryStep;
  m_keyStep = keyStep;
  m_queryStep = queryStep;
  return changed;
}

void AttentionHeatmap::afterLayout() {
  if (updateLabelSteps()) {
    setIndexLabels(m_plot->xAxis, m_keyTokens, m_keyStep);
    setIndexLabels(m_plot->yAxis, m_queryTokens, m_queryStep);
    relayout();  // the ticks of this very frame were set up before; redo them
  }
}

void AttentionHeatmap::setGuidance(const Matrix& pattern) {
  m_guidance = (pattern.isValid() && pattern.rows == m_matrix.rows && pattern.cols == m_matrix.cols)
                   ? pattern
                   : Matrix();
  fillGuidance();
}

void AttentionHeatmap::fillGuidance() {
  if (!m_guidance.isValid()) {
    m_guidanceMap->setVisible(false);
    return;
  }
  QCPColorMapData* data = m_guidanceMap->data();
  const int q = m_guidance.rows, k = m_guidance.cols;
  if (data->keySize() != k || data->valueSize() != q) data->setSize(k, q);
  data->setRange(cellRange(k), cellRange(q));
  double hi = 0.0;
  for (int r = 0; r < q; ++r)
    for (int c = 0; c < k; ++c) {
      const double x = m_guidance.at(r, c);
      // Zero cells become NaN, which the gradient draws fully transparent.
      data->setCell(c, r, x > 0 ? x : std::numeric_limits<double>::quiet_NaN());
      if (x > hi) hi = x;
    }
  m_guidanceMap->setDataRange(QCPRange(0.0, hi > 0 ? hi : 1.0));
  m_guidanceMap->setVisible(m_guidanceVisible);
}

void AttentionHeatmap::setGuidanceVisible(bool visible) {
  m_guidanceVisible = visible;
  m_guidanceMap->setVisible(visible && m_guidance.isValid());
}

void AttentionHeatmap::setLogScale(bool on) {
  m_logScale = on;
  applyScaleType();
}

void AttentionHeatmap::applyScaleType() {
  const bool log = logActive();
  m_map->setDataScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (log)
    m_scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  else
    m_scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
  fillColourMap();
}

void AttentionHeatmap::setColourMap(ColourMap map) {
  m_colourMap = map;
  if (!m_diverging) m_map->setGradient(colourGradient(map));
}

void AttentionHeatmap::setDiverging(bool on) {
  if (on == m_diverging) return;
  m_diverging = on;
  m_map->setGradient(on ? divergingGradient() : colourGradient(m_colourMap));
  applyScaleType();
}

void AttentionHeatmap::setValueLabel(const QString& label) {
  m_scale->axis()->setLabel(label);
}

QString AttentionHeatmap::valueLabel() const {
  return m_scale->axis()->label();
}

void AttentionHeatmap::setValueRange(double lower, double upper) {
  m_fixedRange = true;
  m_rangeLo = lower;
  m_rangeHi = upper;
  applyRange();
}

void AttentionHeatmap::autoRange() {
  m_fixedRange = false;
  applyRange();
}

double AttentionHeatmap::colourLower() const {
  return m_map->dataRange().lower;
}

double AttentionHeatmap::colourUpper() const {
  return m_map->dataRange().upper;
}

bool AttentionHeatmap::cellAt(const QPointF& pixel, int* query, int* key) const {
  if (!m_plot->axisRect()->rect().contains(pixel.toPoint())) return false;
  const int k = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(pixel.x())));
  const int q = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(pixel.y())));
  if (k < 0 || q < 0 || k >= m_matrix.cols || q >= m_matrix.rows) return false;
  *query = q;
  *key = k;
  return true;
}

QString AttentionHeatmap::hoverAt(const QPointF& pixel) {
  int q = 0, k = 0;
  const bool inside = cellAt(pixel, &q, &k);
  QString text;
  if (inside) {
    const double value = m_matrix.at(q, k);
    text =
        QStringLiteral("query %1 \u2192 key %2: %3")
            .arg(quoted(m_queryTokens, q), quoted(m_keyTokens, k), QString::number(value, 'g', 4));
    if (m_guidance.isValid())
      text += QStringLiteral("  (target %1)").arg(QString::number(m_guidance.at(q, k), 'g', 3));
    if (m_bandHalfWidth >= 0 && std::abs(q - k) > m_bandHalfWidth)
      text += QStringLiteral("  (outside the window)");
  }
  const bool changed = inside != m_readout->visible() || text != m_readout->text();
  m_readout->setVisible(inside);
  m_readout->setText(text);
  if (changed) m_plot->layer(QStringLiteral("overlay"))->replot();
  if (inside) emit cellHovered(q, k, m_matrix.at(q, k));
  return text;
}

QString AttentionHeatmap::readout() const {
  return m_readout->visible() ? m_readout->text() : QString();
}

void AttentionHeatmap::applyThemeToContent() {
  QColor box = m_theme.background;
  box.setAlpha(225);
  m_readout->setBrush(QBrush(box));
  m_readout->setPen(QPen(m_theme.accent));
  m_readout->setColor(m_theme.foreground);
  QCPColorGradient overlay;
  QColor clear = m_theme.overlay;
  clear.setAlpha(0);
  overlay.setColorStops({{0.0, clear}, {1.0, m_theme.overlay}});
  overlay.setNanHandling(QCPColorGradient::nhTransparent);
  m_guidanceMap->setGradient(overlay);
  // The band's frame in the accent colour, dashed so the cells along it stay readable.
  QPen band(m_theme.accent, 1.5, Qt::DashLine);
  for (auto* edge : m_bandEdges) {
    edge->setPen(band);
    edge->setBrush(Qt::NoBrush);
    edge->setLineStyle(QCPCurve::lsLine);
    edge->setScatterStyle(QCPScatterStyle::ssNone);
  }
}

}  // namespace attnlab::widgets
