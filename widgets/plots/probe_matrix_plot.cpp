#include "widgets/plots/probe_matrix_plot.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "widgets/plots/colour_maps.h"

namespace attnlab::widgets {

ProbeMatrixPlot::ProbeMatrixPlot(QWidget* parent) : PlotWidget(parent) {
  QCPAxisRect* rect = m_plot->axisRect();
  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  m_map->setInterpolate(false);
  m_map->removeFromLegend();  // the legend is for the bars and baselines
  m_scale = new QCPColorScale(m_plot);
  m_scale->setType(QCPAxis::atRight);
  m_scale->setBarWidth(14);
  m_scale->axis()->setLabel(tr("accuracy"));
  m_map->setColorScale(m_scale);
  // After connecting: a colour scale pushes its own gradient to the maps it serves.
  m_scale->setGradient(colourGradient(ColourMap::Viridis));
  m_map->setDataRange(QCPRange(0.0, 1.0));
  content()->addElement(0, 1, m_scale);

  m_barRect = new QCPAxisRect(m_plot);
  content()->addElement(0, 2, m_barRect);
  content()->setColumnStretchFactor(0, 3.0);
  content()->setColumnStretchFactor(1, 0.01);
  content()->setColumnStretchFactor(2, 1.4);
  // The colour scale's label sits right of its bar: room for it before the bar panel.
  content()->setColumnSpacing(28);
  auto* group = new QCPMarginGroup(m_plot);
  for (QCPLayoutElement* e :
       {static_cast<QCPLayoutElement*>(rect), static_cast<QCPLayoutElement*>(m_scale),
        static_cast<QCPLayoutElement*>(m_barRect)})
    e->setMarginGroup(QCP::msTop | QCP::msBottom, group);

  m_plot->xAxis->setLabel(tr("head"));
  m_plot->yAxis->setLabel(tr("layer"));
  m_plot->yAxis->setRangeReversed(true);
  m_plot->xAxis->grid()->setVisible(false);
  m_plot->yAxis->grid()->setVisible(false);
  QCPAxis* bx = m_barRect->axis(QCPAxis::atBottom);
  QCPAxis* by = m_barRect->axis(QCPAxis::atLeft);
  bx->setLabel(tr("best head per layer"));
  bx->setRange(0.0, 1.0);
  by->setRangeReversed(true);
  by->setTickLabels(false);

  // The legend (the bars and the baselines) is one line below everything, clear of data.
  m_plot->axisRect()->insetLayout()->take(m_plot->legend);
  m_plot->plotLayout()->addElement(2, 0, m_plot->legend);
  m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
  m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  // Three entries a row: five names with their accuracies fit a narrow tab unclipped.
  m_plot->legend->setWrap(3);
  m_plot->legend->setVisible(true);

  m_frame = new QCPItemRect(m_plot);
  m_frame->setBrush(Qt::NoBrush);
  m_frame->setClipToAxisRect(false);
  m_label = new QCPItemText(m_plot);
  m_label->setClipToAxisRect(false);
  m_label->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_label->position->setAxisRect(rect);
  m_label->position->setCoords(0.0, -0.01);
  m_label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  m_selectedFrame = new QCPItemRect(m_plot);
  m_selectedFrame->setBrush(Qt::NoBrush);
  m_selectedFrame->setVisible(false);
  // A click picks a head for a drill-down: cells are one unit wide, centred on integers.
  connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
    if (!m_acc.isValid() || event->button() != Qt::LeftButton) return;
    if (!matrixRect()->rect().contains(event->pos())) return;
    const int head = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(event->pos().x())));
    const int layer = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(event->pos().y())));
    if (layer < 0 || layer >= m_acc.rows || head < 0 || head >= m_acc.cols) return;
    emit headClicked(layer, head);
  });
  setTheme(m_theme);
}

void ProbeMatrixPlot::setSelectedHead(int layer, int head) {
  m_selected = {layer, head};
  placeSelectedFrame();
  requestReplot();
}

void ProbeMatrixPlot::placeSelectedFrame() {
  const bool shown = m_acc.isValid() && m_selected.x() >= 0 && m_selected.x() < m_acc.rows &&
                     m_selected.y() >= 0 && m_selected.y() < m_acc.cols;
  m_selectedFrame->setVisible(shown);
  if (!shown) return;
  // Inset, so the best head's frame stays visible when the two coincide.
  m_selectedFrame->topLeft->setCoords(m_selected.y() - 0.38, m_selected.x() - 0.38);
  m_selectedFrame->bottomRight->setCoords(m_selected.y() + 0.38, m_selected.x() + 0.38);
}

QPoint ProbeMatrixPlot::cellCentre(int layer, int head) const {
  if (!m_acc.isValid() || layer < 0 || layer >= m_acc.rows || head < 0 || head >= m_acc.cols)
    return {-1, -1};
  return {static_cast<int>(std::lround(m_plot->xAxis->coordToPixel(head))),
          static_cast<int>(std::lround(m_plot->yAxis->coordToPixel(layer)))};
}

QCPAxisRect* ProbeMatrixPlot::matrixRect() const {
  return m_plot->axisRect(0);
}

double ProbeMatrixPlot::bestAccuracy() const {
  return m_best.x() >= 0 ? m_acc.at(m_best.x(), m_best.y()) : std::nan("");
}

void ProbeMatrixPlot::setAccuracies(const Matrix& accuracy) {
  m_acc = accuracy;
  rebuild();
}

void ProbeMatrixPlot::setBaselines(const QVector<ProbeBaseline>& baselines) {
  m_baselines = baselines;
  rebuild();
}

void ProbeMatrixPlot::setValueLabel(const QString& label) {
  m_scale->axis()->setLabel(label);
}

void ProbeMatrixPlot::rebuild() {
  // Everything but the heatmap is rebuilt; it holds few elements.
  for (int i = m_plot->plottableCount() - 1; i >= 0; --i)
    if (m_plot->plottable(i) != m_map) m_plot->removePlottable(i);
  for (int i = m_plot->itemCount() - 1; i >= 0; --i)
    if (m_plot->item(i) != m_frame && m_plot->item(i) != m_label &&
        m_plot->item(i) != m_selectedFrame)
      m_plot->removeItem(i);
  m_best = {-1, -1};
  const int layers = m_acc.rows, heads = m_acc.cols;
  if (!m_acc.isValid()) {
    m_frame->setVisible(false);
    m_label->setVisible(false);
    m_selectedFrame->setVisible(false);
    return;
  }
  QCPColorMapData* d = m_map->data();
  d->setSize(heads, layers);
  d->setRange(heads > 1 ? QCPRange(0, heads - 1) : QCPRange(-0.5, 0.5),
              layers > 1 ? QCPRange(0, layers - 1) : QCPRange(-0.5, 0.5));
  double best = -1.0;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) {
      const double a = m_acc.at(l, h);
      d->setCell(h, l, a);
      if (std::isfinite(a) && a > best) best = a, m_best = {l, h};
    }
  m_plot->xAxis->setRange(-0.5, heads - 0.5);
  m_plot->yAxis->setRange(-0.5, layers - 0.5);
  auto xt = QSharedPointer<QCPAxisTickerText>::create();
  for (int h = 0; h < heads; h += std::max(1, heads / 16)) xt->addTick(h, QString::number(h));
  auto yt = QSharedPointer<QCPAxisTickerText>::create();
  for (int l = 0; l < layers; l += std::max(1, layers / 24)) yt->addTick(l, QString::number(l));
  m_plot->xAxis->setTicker(xt);
  m_plot->yAxis->setTicker(yt);

  m_frame->setVisible(m_best.x() >= 0);
  m_label->setVisible(m_best.x() >= 0);
  if (m_best.x() >= 0) {
    m_frame->topLeft->setCoords(m_best.y() - 0.5, m_best.x() - 0.5);
    m_frame->bottomRight->setCoords(m_best.y() + 0.5, m_best.x() + 0.5);
    m_label->setText(tr("best: layer %1, head %2 = %3")
                         .arg(m_best.x())
                         .arg(m_best.y())
                         .arg(QString::number(best, 'f', 3)));
  }

  placeSelectedFrame();

  // Side panel: each layer's best head, and the baselines.
  QCPAxis* bx = m_barRect->axis(QCPAxis::atBottom);
  QCPAxis* by = m_barRect->axis(QCPAxis::atLeft);
  by->setRange(-0.5, layers - 0.5);
  auto* bars = new QCPBars(by, bx);  // key on the vertical axis: horizontal bars
  bars->setName(tr("best head of the layer"));
  bars->setWidth(0.7);
  QVector<double> keys, values;
  for (int l = 0; l < layers; ++l) {
    double b = 0.0;
    for (int h = 0; h < heads; ++h)
      if (std::isfinite(m_acc.at(l, h))) b = std::max(b, double(m_acc.at(l, h)));
    keys << l;
    values << b;
  }
  bars->setData(keys, values, true);
  for (int i = 0; i < m_baselines.size(); ++i) {
    // A two-point graph rather than an item, so that the baseline appears in the legend.
    auto* line = new QCPGraph(bx, by);
    line->setName(QStringLiteral("%1 (%2)").arg(m_baselines[i].name,
                                                QString::number(m_baselines[i].accuracy, 'f', 3)));
    line->setData({m_baselines[i].accuracy, m_baselines[i].accuracy}, {-0.5, layers - 0.5});
    line->setProperty("baseline", i);
  }
  applyTheme(*m_plot, m_theme);
  applyThemeToContent();
  requestReplot();
}

void ProbeMatrixPlot::applyThemeToContent() {
  m_frame->setPen(QPen(m_theme.accent, 3.0));
  m_selectedFrame->setPen(QPen(m_theme.foreground, 2.0, Qt::DashLine));
  m_label->setColor(m_theme.foreground);
  QFont f = m_label->font();
  f.setBold(true);
  m_label->setFont(f);
  for (int i = 0; i < m_plot->plottableCount(); ++i) {
    QCPAbstractPlottable* p = m_plot->plottable(i);
    if (auto* bars = qobject_cast<QCPBars*>(p)) {
      QColor c = m_theme.seriesColour(0);
      c.setAlpha(200);
      bars->setBrush(c);
      bars->setPen(Qt::NoPen);
    } else if (p->property("baseline").isValid()) {
      const int k = p->property("baseline").toInt();
      p->setPen(QPen(m_theme.seriesColour(k + 1), 2.0, k % 2 ? Qt::DotLine : Qt::DashLine));
    }
  }
}

}  // namespace attnlab::widgets
