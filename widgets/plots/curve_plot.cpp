#include "widgets/plots/curve_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/plots/curve_decimation.h"

namespace attnlab::widgets {

struct CurvePlot::Series {
  QString name;
  int colourIndex = 0;
  std::vector<double> steps, values, wall, smoothed;
  DebiasedEma ema;
  double minValue = std::numeric_limits<double>::infinity();
  double maxValue = -std::numeric_limits<double>::infinity();
  double minPositive = std::numeric_limits<double>::infinity();
  QCPGraph* line = nullptr;
  QCPGraph* upper = nullptr;
  QCPGraph* lower = nullptr;

  bool hasWall() const { return !wall.empty() && wall.size() == steps.size(); }
};

namespace {

QVector<double> toQVector(const std::vector<double>& v) {
  return QVector<double>(v.begin(), v.end());
}

}  // namespace

CurvePlot::CurvePlot(QWidget* parent) : PlotWidget(parent) {
  m_plot->xAxis->setLabel(QStringLiteral("step"));
  m_plot->yAxis->setLabel(m_yQuantity);
  m_plot->legend->setVisible(true);
  m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
  m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
  // A user who zooms or drags wants to look at something: stop following new data until a
  // double click asks for the whole run again.
  connect(m_plot, &QCustomPlot::mousePress, this, [this] { m_follow = false; });
  connect(m_plot, &QCustomPlot::mouseWheel, this, [this] { m_follow = false; });
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] {
    fitToData();
    requestReplot();
  });
  setTheme(m_theme);
}

CurvePlot::~CurvePlot() = default;

CurvePlot::Series* CurvePlot::find(const QString& run) const {
  for (const auto& s : m_series)
    if (s->name == run) return s.get();
  return nullptr;
}

CurvePlot::Series* CurvePlot::findOrCreate(const QString& run) {
  if (Series* s = find(run)) return s;
  auto s = std::make_unique<Series>();
  s->name = run;
  // Colours follow creation order, so a run keeps its colour while others come and go.
  int index = 0;
  for (const auto& other : m_series) index = std::max(index, other->colourIndex + 1);
  s->colourIndex = index;
  s->lower = m_plot->addGraph();
  s->upper = m_plot->addGraph();
  s->line = m_plot->addGraph();
  s->upper->setChannelFillGraph(s->lower);
  s->lower->removeFromLegend();
  s->upper->removeFromLegend();
  s->line->setName(run);
  // The data arrive already thinned to a few points per pixel column (rebuild()).
  for (QCPGraph* g : {s->lower, s->upper, s->line}) g->setAdaptiveSampling(false);
  // An antialiased fill of a band this jagged costs ~100 ms per frame at a million points
  // and looks the same without antialiasing at its transparency.
  s->upper->setAntialiasedFill(false);
  m_series.push_back(std::move(s));
  applyThemeToContent();
  return m_series.back().get();
}

void CurvePlot::resmooth(Series& s, std::size_t from) {
  if (from == 0) {
    s.ema = DebiasedEma(m_smoothing);
    s.smoothed.clear();
  }
  s.smoothed.resize(s.values.size());
  for (std::size_t i = from; i < s.values.size(); ++i) {
    const double v = s.values[i];
    s.smoothed[i] = m_smoothing > 0 ? s.ema.push(v) : v;
    if (std::isfinite(v)) {
      s.minValue = std::min(s.minValue, v);
      s.maxValue = std::max(s.maxValue, v);
      if (v > 0) s.minPositive = std::min(s.minPositive, v);
    }
  }
}

void CurvePlot::setSeries(const QString& run, std::vector<double> steps, std::vector<double> values,
                          std::vector<double> wallSeconds) {
  Series* s = findOrCreate(run);
  const std::size_t n = std::min(steps.size(), values.size());
  steps.resize(n);
  values.resize(n);
  s->steps = std::move(steps);
  s->values = std::move(values);
  s->wall = std::move(wallSeconds);
  s->minValue = s->minPositive = std::numeric_limits<double>::infinity();
  s->maxValue = -std::numeric_limits<double>::infinity();
  resmooth(*s, 0);
  dataChanged();
}

void CurvePlot::appendPoints(const QString& run, const std::vector<double>& steps,
                             const std::vector<double>& values,
                             const std::vector<double>& wallSeconds) {
  Series* s = findOrCreate(run);
  const std::size_t from = s->values.size();
  const std::size_t n = std::min(steps.size(), values.size());
  const bool keepWall = wallSeconds.size() == n && s->wall.size() == from;
  s->steps.insert(s->steps.end(), steps.begin(), steps.begin() + n);
  s->values.insert(s->values.end(), values.begin(), values.begin() + n);
  if (keepWall)
    s->wall.insert(s->wall.end(), wallSeconds.begin(), wallSeconds.end());
  else
    s->wall.clear();  // a partial time axis would misplace points; fall back to steps
  resmooth(*s, from);
  dataChanged();
}

void CurvePlot::removeSeries(const QString& run) {
  for (auto it = m_series.begin(); it != m_series.end(); ++it) {
    if ((*it)->name != run) continue;
    m_plot->removeGraph((*it)->line);
    m_plot->removeGraph((*it)->upper);
    m_plot->removeGraph((*it)->lower);
    m_series.erase(it);
    dataChanged();
    return;
  }
}

void CurvePlot::clear() {
  while (!m_series.empty()) removeSeries(m_series.back()->name);
}

QStringList CurvePlot::runs() const {
  QStringList out;
  for (const auto& s : m_series) out << s->name;
  return out;
}

std::size_t CurvePlot::pointCount(const QString& run) const {
  const Series* s = find(run);
  return s ? s->values.size() : 0;
}

void CurvePlot::setSeriesColour(const QString& run, const QColor& colour) {
  if (colour.isValid())
    m_fixedColours.insert(run, colour);
  else
    m_fixedColours.remove(run);
  if (find(run) == nullptr) return;
  applyThemeToContent();
  m_dirty = true;  // the next layout sets the line width for its density again
  requestReplot();
}

QColor CurvePlot::seriesColour(const QString& run) const {
  const Series* s = find(run);
  return s ? s->line->pen().color() : QColor();
}

void CurvePlot::setSmoothing(double weight) {
  m_smoothing = std::clamp(weight, 0.0, 0.999);
  for (auto& s : m_series) resmooth(*s, 0);
  m_dirty = true;
  requestReplot();
}

void CurvePlot::setXAxis(CurveXAxis axis) {
  m_xAxis = axis;
  updateTicker();
  m_follow = true;
  dataChanged();
}

void CurvePlot::updateTicker() {
  switch (m_xAxis) {
    case CurveXAxis::Step:
      m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
      m_plot->xAxis->setLabel(QStringLiteral("step"));
      break;
    case CurveXAxis::WallTime: {
      auto t = QSharedPointer<QCPAxisTickerDateTime>::create();
      t->setDateTimeFormat(QStringLiteral("hh:mm\nMMM d"));
      m_plot->xAxis->setTicker(t);
      m_plot->xAxis->setLabel(QStringLiteral("wall time (local)"));
      break;
    }
    case CurveXAxis::RelativeTime: {
      auto t = QSharedPointer<QCPAxisTickerTime>::create();
      t->setTimeFormat(QStringLiteral("%h:%m:%s"));
      m_plot->xAxis->setTicker(t);
      m_plot->xAxis->setLabel(QStringLiteral("time since start (h:mm:ss)"));
      break;
    }
  }
}

void CurvePlot::setLogY(bool on) {
  m_logY = on;
  m_plot->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (on)
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  else
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  fitToData();
  requestReplot();
}

void CurvePlot::setYLabel(const QString& quantity, const QString& unit) {
  m_yQuantity = quantity;
  m_yUnit = unit;
  m_plot->yAxis->setLabel(unit.isEmpty() ? quantity
                                         : QStringLiteral("%1 (%2)").arg(quantity, unit));
}

void CurvePlot::setShowEnvelope(bool on) {
  m_showEnvelope = on;
  m_dirty = true;
  requestReplot();
}

void CurvePlot::setLegendAlignment(Qt::Alignment alignment) {
  m_plot->axisRect()->insetLayout()->setInsetAlignment(0, alignment);
  requestReplot();
}

Qt::Alignment CurvePlot::legendAlignment() const {
  return m_plot->axisRect()->insetLayout()->insetAlignment(0);
}

void CurvePlot::dataChanged() {
  m_dirty = true;
  if (m_follow) fitToData();
  requestReplot();
}

void CurvePlot::fitToData() {
  m_follow = true;
  double xLo = std::numeric_limits<double>::infinity(), xHi = -xLo;
  double yLo = xLo, yHi = -xLo;
  for (const auto& s : m_series) {
    if (s->steps.empty()) continue;
    const bool wall = m_xAxis != CurveXAxis::Step && s->hasWall();
    const std::vector<double>& x = wall ? s->wall : s->steps;
    const double offset = (wall && m_xAxis == CurveXAxis::RelativeTime) ? s->wall.front() : 0.0;
    xLo = std::min(xLo, x.front() - offset);
    xHi = std::max(xHi, x.back() - offset);
    yLo = std::min(yLo, m_logY ? s->minPositive : s->minValue);
    yHi = std::max(yHi, s->maxValue);
  }
  if (!std::isfinite(xLo)) return;
  if (!(xHi > xLo)) xHi = xLo + 1;
  if (!std::isfinite(yLo) || !std::isfinite(yHi)) yLo = 1, yHi = 10;
  if (!(yHi > yLo)) yHi = yLo + (m_logY ? yLo : 1.0);
  m_plot->xAxis->setRange(xLo, xHi);
  if (m_logY) {
    m_plot->yAxis->setRange(yLo / 1.15, yHi * 1.15);
  } else {
    const double pad = 0.04 * (yHi - yLo);
    m_plot->yAxis->setRange(yLo - pad, yHi + pad);
  }
  m_dirty = true;
}

void CurvePlot::afterLayout() {
  const QCPRange r = m_plot->xAxis->range();
  // One column per device pixel of the plotting area (exports at a higher DPI get more).
  const int columns = std::max(1, m_plot->axisRect()->width());
  if (m_dirty || r.lower != m_builtLo || r.upper != m_builtHi || columns != m_builtColumns) {
    m_builtLo = r.lower;
    m_builtHi = r.upper;
    m_builtColumns = columns;
    rebuild();
  }
}

void CurvePlot::rebuild() {
  m_dirty = false;
  const double lo = m_builtLo, hi = m_builtHi;
  for (const auto& s : m_series) {
    const bool wall = m_xAxis != CurveXAxis::Step && s->hasWall();
    const std::vector<double>& x = wall ? s->wall : s->steps;
    const double offset =
        (wall && m_xAxis == CurveXAxis::RelativeTime && !x.empty()) ? x.front() : 0.0;
    const std::size_t n = x.size();
    Polyline line =
        decimateMinMax(x.data(), s->smoothed.data(), n, lo + offset, hi + offset, m_builtColumns);
    for (double& v : line.x) v -= offset;
    // A dense line (several points per pixel column) is stroked at width 1: Qt's wide
    // antialiased stroker costs ~5x more on the zigzag that min/max thinning produces.
    const bool dense = line.x.size() > static_cast<std::size_t>(m_builtColumns);
    QPen pen = s->line->pen();
    pen.setWidthF(dense ? 1.0 : 1.6);
    s->line->setPen(pen);
    s->line->setData(toQVector(line.x), toQVector(line.y), true);
    const bool band = m_showEnvelope && m_smoothing > 0;
    if (band) {
      Envelope e =
          minMaxEnvelope(x.data(), s->values.data(), n, lo + offset, hi + offset, m_builtColumns);
      for (double& v : e.x) v -= offset;
      const QVector<double> ex = toQVector(e.x);
      s->lower->setData(ex, toQVector(e.lower), true);
      s->upper->setData(ex, toQVector(e.upper), true);
    } else {
      s->lower->data()->clear();
      s->upper->data()->clear();
    }
  }
}

std::pair<std::vector<double>, std::vector<double>> CurvePlot::displayedLine(
    const QString& run) const {
  std::pair<std::vector<double>, std::vector<double>> out;
  const Series* s = find(run);
  if (!s) return out;
  for (auto it = s->line->data()->constBegin(); it != s->line->data()->constEnd(); ++it) {
    out.first.push_back(it->key);
    out.second.push_back(it->value);
  }
  return out;
}

std::vector<std::vector<double>> CurvePlot::displayedEnvelope(const QString& run) const {
  std::vector<std::vector<double>> out(3);
  const Series* s = find(run);
  if (!s) return out;
  auto lo = s->lower->data()->constBegin();
  auto hi = s->upper->data()->constBegin();
  for (; lo != s->lower->data()->constEnd(); ++lo, ++hi) {
    out[0].push_back(lo->key);
    out[1].push_back(lo->value);
    out[2].push_back(hi->value);
  }
  return out;
}

void CurvePlot::applyThemeToContent() {
  for (const auto& s : m_series) {
    const QColor c = m_fixedColours.value(s->name, m_theme.seriesColour(s->colourIndex));
    s->line->setPen(QPen(c, 1.6));
    QColor band = c;
    band.setAlpha(60);
    s->upper->setPen(Qt::NoPen);
    s->lower->setPen(Qt::NoPen);
    s->upper->setBrush(QBrush(band));
  }
  applyTheme(*m_plot, m_theme);
}

}  // namespace attnlab::widgets
