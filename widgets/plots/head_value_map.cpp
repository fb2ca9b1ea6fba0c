#include "widgets/plots/head_value_map.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "widgets/plots/axis_labels.h"
#include "widgets/plots/colour_maps.h"

namespace attnlab::widgets {

namespace {
// Values are written into cells at least this large (pixels); smaller cells show colour only.
constexpr double kTextCellWidth = 34.0;
constexpr double kTextCellHeight = 16.0;
constexpr int kMaxLabels = 24;

QString cellNumber(double v) {
  if (!std::isfinite(v)) return QStringLiteral("n/a");
  return QString::number(v, 'g', 3);
}
}  // namespace

HeadValueMap::HeadValueMap(QWidget* parent) : PlotWidget(parent) {
  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  m_map->setInterpolate(false);
  m_scale = new QCPColorScale(m_plot);
  m_scale->setType(QCPAxis::atRight);
  m_scale->setBarWidth(14);
  m_map->setColorScale(m_scale);
  QCPColorGradient gradient = colourGradient(ColourMap::Viridis);
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  m_scale->setGradient(gradient);
  content()->addElement(0, 1, m_scale);
  content()->setColumnStretchFactor(1, 0.01);
  auto* group = new QCPMarginGroup(m_plot);
  m_plot->axisRect()->setMarginGroup(QCP::msTop | QCP::msBottom, group);
  m_scale->setMarginGroup(QCP::msTop | QCP::msBottom, group);
  m_plot->legend->setVisible(false);
  m_plot->xAxis->setLabel(tr("head"));
  m_plot->yAxis->setLabel(tr("layer"));
  m_plot->yAxis->setRangeReversed(true);
  m_plot->xAxis->grid()->setVisible(false);
  m_plot->yAxis->grid()->setVisible(false);
  m_selectedFrame = new QCPItemRect(m_plot);
  m_selectedFrame->setBrush(Qt::NoBrush);
  m_selectedFrame->setVisible(false);
  m_plot->setMouseTracking(true);
  connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    const QPoint head = headAt(event->pos());
    if (head.x() >= 0) emit headClicked(head.x(), head.y());
  });
  connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
    const QPoint head = headAt(event->pos());
    if (head == m_hovered) return;
    m_hovered = head;
    emit headHovered(head.x(), head.y());
  });
  setTheme(m_theme);
}

QPoint HeadValueMap::headAt(const QPoint& pixel) const {
  if (!m_values.isValid() || !m_plot->axisRect()->rect().contains(pixel)) return {-1, -1};
  const int head = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(pixel.x())));
  const int layer = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(pixel.y())));
  if (layer < 0 || layer >= m_values.rows || head < 0 || head >= m_values.cols) return {-1, -1};
  return {layer, head};
}

void HeadValueMap::setValues(const Matrix& values) {
  m_values = values;
  rebuild();
}

void HeadValueMap::setValueLabel(const QString& label) {
  m_scale->axis()->setLabel(label);
  requestReplot();
}

QString HeadValueMap::valueLabel() const {
  return m_scale->axis()->label();
}

void HeadValueMap::setValueRange(std::optional<std::pair<double, double>> range) {
  m_fixedRange = range;
  rebuild();
}

std::pair<double, double> HeadValueMap::valueRange() const {
  const QCPRange r = m_scale->dataRange();
  return {r.lower, r.upper};
}

void HeadValueMap::setMarkedHeads(const QVector<QPoint>& heads) {
  m_marked = heads;
  placeFrames();
  applyThemeToContent();
  requestReplot();
}

void HeadValueMap::setSelectedHead(int layer, int head) {
  m_selected = {layer, head};
  placeFrames();
  requestReplot();
}

double HeadValueMap::drawnCell(int layer, int head) const {
  if (!m_values.isValid() || layer < 0 || layer >= m_values.rows || head < 0 ||
      head >= m_values.cols)
    return std::nan("");
  return m_map->data()->cell(head, layer);
}

QString HeadValueMap::cellText(int layer, int head) const {
  const int i = layer * m_values.cols + head;
  if (!m_values.isValid() || layer < 0 || layer >= m_values.rows || head < 0 ||
      head >= m_values.cols || i >= m_texts.size() || !m_texts[i]->visible())
    return {};
  return m_texts[i]->text();
}

QPoint HeadValueMap::cellCentre(int layer, int head) const {
  if (!m_values.isValid() || layer < 0 || layer >= m_values.rows || head < 0 ||
      head >= m_values.cols)
    return {-1, -1};
  return {static_cast<int>(std::lround(m_plot->xAxis->coordToPixel(head))),
          static_cast<int>(std::lround(m_plot->yAxis->coordToPixel(layer)))};
}

void HeadValueMap::rebuild() {
  for (QCPItemText* t : m_texts) m_plot->removeItem(t);
  m_texts.clear();
  const int layers = m_values.rows, heads = m_values.cols;
  QCPColorMapData* d = m_map->data();
  if (!m_values.isValid()) {
    d->clear();
    placeFrames();
    requestReplot();
    return;
  }
  d->setSize(heads, layers);
  d->setRange(heads > 1 ? QCPRange(0, heads - 1) : QCPRange(-0.5, 0.5),
              layers > 1 ? QCPRange(0, layers - 1) : QCPRange(-0.5, 0.5));
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) {
      const double v = m_values.at(l, h);
      d->setCell(h, l, v);
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
      auto* text = new QCPItemText(m_plot);
      text->position->setCoords(h, l);
      text->setPositionAlignment(Qt::AlignCenter);
      text->setText(cellNumber(v));
      m_texts << text;
    }
  if (m_fixedRange) lo = m_fixedRange->first, hi = m_fixedRange->second;
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (hi - lo < 1e-12) hi = lo + 1e-6;
  m_scale->setDataRange(QCPRange(lo, hi));
  m_plot->xAxis->setRange(-0.5, heads - 0.5);
  m_plot->yAxis->setRange(-0.5, layers - 0.5);
  setIndexLabels(m_plot->xAxis, indexLabels(heads),
                 std::max(1, (heads + kMaxLabels - 1) / kMaxLabels));
  setIndexLabels(m_plot->yAxis, indexLabels(layers),
                 std::max(1, (layers + kMaxLabels - 1) / kMaxLabels));
  placeFrames();
  applyTheme(*m_plot, m_theme);
  applyThemeToContent();
  requestReplot();
}

void HeadValueMap::placeFrames() {
  for (QCPItemRect* f : m_markFrames) m_plot->removeItem(f);
  m_markFrames.clear();
  const auto inside = [this](const QPoint& p) {
    return m_values.isValid() && p.x() >= 0 && p.x() < m_values.rows && p.y() >= 0 &&
           p.y() < m_values.cols;
  };
  for (const QPoint& p : m_marked) {
    if (!inside(p)) continue;
    auto* frame = new QCPItemRect(m_plot);
    frame->setBrush(Qt::NoBrush);
    frame->topLeft->setCoords(p.y() - 0.46, p.x() - 0.46);
    frame->bottomRight->setCoords(p.y() + 0.46, p.x() + 0.46);
    m_markFrames << frame;
  }
  m_selectedFrame->setVisible(inside(m_selected));
  if (!inside(m_selected)) return;
  // Inset, so that a marked head's frame stays visible around it.
  m_selectedFrame->topLeft->setCoords(m_selected.y() - 0.36, m_selected.x() - 0.36);
  m_selectedFrame->bottomRight->setCoords(m_selected.y() + 0.36, m_selected.x() + 0.36);
}

void HeadValueMap::updateCellTexts() {
  if (!m_values.isValid() || m_texts.isEmpty()) return;
  const QRect r = m_plot->axisRect()->rect();
  const bool fits = r.width() / double(m_values.cols) >= kTextCellWidth &&
                    r.height() / double(m_values.rows) >= kTextCellHeight;
  const QCPRange range = m_scale->dataRange();
  for (int l = 0; l < m_values.rows; ++l)
    for (int h = 0; h < m_values.cols; ++h) {
      QCPItemText* text = m_texts[l * m_values.cols + h];
      text->setVisible(fits);
      const double v = m_values.at(l, h);
      // Viridis is dark at the low end and bright at the high end: the text contrasts.
      const double t = std::isfinite(v) ? (v - range.lower) / std::max(1e-12, range.size()) : 0.0;
      text->setColor(!std::isfinite(v) ? m_theme.foreground
                     : t < 0.6         ? QColor(Qt::white)
                                       : QColor(0x11, 0x11, 0x11));
    }
}

void HeadValueMap::afterLayout() {
  updateCellTexts();
}

void HeadValueMap::applyThemeToContent() {
  m_selectedFrame->setPen(QPen(m_theme.foreground, 2.0, Qt::DashLine));
  for (QCPItemRect* f : m_markFrames) f->setPen(QPen(m_theme.classHigh, 3.0));
  updateCellTexts();
}

}  // namespace attnlab::widgets
