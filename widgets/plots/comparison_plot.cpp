#include "widgets/plots/comparison_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/plots/axis_labels.h"

namespace attnlab::widgets {

ComparisonPlot::ComparisonPlot(QWidget* parent) : PlotWidget(parent) {
  QCPLayoutGrid* grid = content();
  m_rects[0] = m_plot->axisRect();
  grid->take(m_rects[0]);
  grid->simplify();
  m_rects[1] = new QCPAxisRect(m_plot);
  m_scale = new QCPColorScale(m_plot);
  m_scale->setType(QCPAxis::atRight);
  m_scale->setBarWidth(14);
  m_scale->axis()->setLabel(tr("attention probability"));
  auto* group = new QCPMarginGroup(m_plot);
  for (int s = 0; s < 2; ++s) {
    m_captions[s] = new QCPTextElement(m_plot, QString(), QFont(font().family(), 10, QFont::Bold));
    grid->addElement(0, s, m_captions[s]);
    grid->addElement(1, s, m_rects[s]);
    m_rects[s]->setMarginGroup(QCP::msTop | QCP::msBottom, group);
    QCPAxis* x = m_rects[s]->axis(QCPAxis::atBottom);
    QCPAxis* y = m_rects[s]->axis(QCPAxis::atLeft);
    y->setRangeReversed(true);
    x->grid()->setVisible(false);
    y->grid()->setVisible(false);
    x->setTickLabelRotation(90);
    x->setLabel(tr("key token"));
    y->setLabel(tr("query token"));
    m_maps[s] = new QCPColorMap(x, y);
    m_maps[s]->setInterpolate(false);
    // Both maps on one colour scale: the scale keeps their data ranges identical.
    m_maps[s]->setColorScale(m_scale);
  }
  grid->addElement(1, 2, m_scale);
  m_scale->setMarginGroup(QCP::msTop | QCP::msBottom, group);
  grid->setColumnStretchFactor(2, 0.01);
  grid->setRowStretchFactor(0, 0.01);
  setColourMap(ColourMap::Viridis);
  setTheme(m_theme);
}

QCPAxisRect* ComparisonPlot::panel(int side) const {
  return m_rects[side == 0 ? 0 : 1];
}

void ComparisonPlot::fill(QCPColorMap* map, const Matrix& m) {
  QCPColorMapData* d = map->data();
  d->setSize(m.cols, m.rows);
  d->setRange(m.cols > 1 ? QCPRange(0, m.cols - 1) : QCPRange(-0.5, 0.5),
              m.rows > 1 ? QCPRange(0, m.rows - 1) : QCPRange(-0.5, 0.5));
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) {
      const double v = m.at(r, c);
      d->setCell(c, r, std::isfinite(v) ? v : std::numeric_limits<double>::quiet_NaN());
      if (!std::isfinite(v)) continue;
      m_lo = std::min(m_lo, v);
      m_hi = std::max(m_hi, v);
      if (v > 0) m_minPositive = std::min(m_minPositive, v);
    }
}

void ComparisonPlot::setLabels(QCPAxisRect* rect, const QStringList& rows, const QStringList& cols,
                               int r, int c) {
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  x->setRange(-0.5, c - 0.5);
  y->setRange(-0.5, r - 0.5);
  const double perLabel = QFontMetricsF(x->tickLabelFont()).height() + 2.0;
  // Two panels share the width; assume each gets about 40% of it and 70% of the height.
  setIndexLabels(x, cols.size() == c ? cols : indexLabels(c),
                 labelStep(c, std::max(200, width()) * 0.4, perLabel));
  setIndexLabels(y, rows.size() == r ? rows : indexLabels(r),
                 labelStep(r, std::max(200, height()) * 0.7, perLabel));
}

void ComparisonPlot::setMatrices(const Matrix& left, const QString& leftCaption,
                                 const Matrix& right, const QString& rightCaption,
                                 const QStringList& rowLabels, const QStringList& columnLabels) {
  m_lo = std::numeric_limits<double>::infinity();
  m_hi = -m_lo;
  m_minPositive = m_lo;
  const Matrix* ms[2] = {&left, &right};
  const QString captions[2] = {leftCaption, rightCaption};
  for (int s = 0; s < 2; ++s) {
    if (!ms[s]->isValid()) continue;
    fill(m_maps[s], *ms[s]);
    m_captions[s]->setText(captions[s]);
    setLabels(m_rects[s], rowLabels, columnLabels, ms[s]->rows, ms[s]->cols);
  }
  if (!std::isfinite(m_lo)) m_lo = 0, m_hi = 1;
  if (!std::isfinite(m_minPositive)) m_minPositive = 1e-6;
  setLogScale(m_log);
}

void ComparisonPlot::setLogScale(bool on) {
  m_log = on;
  const QCPAxis::ScaleType type = on ? QCPAxis::stLogarithmic : QCPAxis::stLinear;
  m_scale->setDataScaleType(type);
  for (QCPColorMap* m : m_maps) m->setDataScaleType(type);
  if (on) {
    m_scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    const double hi = std::max(m_hi, 1e-30);
    m_scale->setDataRange(QCPRange(std::max(m_minPositive, hi * 1e-4), hi));
  } else {
    m_scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
    m_scale->setDataRange(QCPRange(m_lo, m_hi > m_lo ? m_hi : m_lo + 1));
  }
  requestReplot();
}

void ComparisonPlot::setColourMap(ColourMap map) {
  // Through the scale, which hands the gradient to both maps.
  m_scale->setGradient(colourGradient(map));
}

void ComparisonPlot::setValueLabel(const QString& label) {
  m_scale->axis()->setLabel(label);
}

QCPRange ComparisonPlot::sharedRange() const {
  return m_scale->dataRange();
}

}  // namespace attnlab::widgets
