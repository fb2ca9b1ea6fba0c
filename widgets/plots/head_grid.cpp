#include "widgets/plots/head_grid.h"

#include <qcustomplot.h>
#include <QHBoxLayout>
#include <QLabel>
#include <QMetaMethod>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <thread>

namespace attnlab::widgets {
namespace {

// Block mean down to at most `cells` per side; each output cell averages the inputs it covers.
Matrix downsample(const float* values, int rows, int cols, int cells) {
  if (rows <= cells && cols <= cells)
    return Matrix(rows, cols,
                  std::vector<float>(values, values + static_cast<std::size_t>(rows) * cols));
  const int outRows = std::min(rows, cells), outCols = std::min(cols, cells);
  Matrix out(outRows, outCols, 0.0f);
  std::vector<int> count(static_cast<std::size_t>(outRows) * outCols, 0);
  std::vector<int> colOf(static_cast<std::size_t>(cols));
  for (int c = 0; c < cols; ++c)
    colOf[static_cast<std::size_t>(c)] =
        static_cast<int>(static_cast<long long>(c) * outCols / cols);
  for (int r = 0; r < rows; ++r) {
    const int orow = static_cast<int>(static_cast<long long>(r) * outRows / rows);
    float* sum = out.values.data() + static_cast<std::size_t>(orow) * outCols;
    int* n = count.data() + static_cast<std::size_t>(orow) * outCols;
    const float* row = values + static_cast<std::size_t>(r) * cols;
    for (int c = 0; c < cols; ++c) {
      const float v = row[c];
      if (!std::isfinite(v)) continue;
      sum[colOf[static_cast<std::size_t>(c)]] += v;
      ++n[colOf[static_cast<std::size_t>(c)]];
    }
  }
  for (std::size_t i = 0; i < out.values.size(); ++i)
    out.values[i] = count[i] ? out.values[i] / count[i] : 0.0f;
  return out;
}

Matrix downsample(const Matrix& m, int cells) {
  return downsample(m.values.data(), m.rows, m.cols, cells);
}

}  // namespace

std::vector<Matrix> headThumbnails(const std::vector<const float*>& heads, int rows, int cols,
                                   int cells) {
  const int n = static_cast<int>(heads.size());
  std::vector<Matrix> thumbs(static_cast<std::size_t>(n), Matrix(1, 1, 0.0f));
  // Block means of a 12 x 12 x 512 x 512 inspection read 150 MB: two threads share the heads
  // (each writes its own thumbnails only).
  const auto work = [&](int first, int step) {
    for (int i = first; i < n; i += step)
      if (const float* p = heads[static_cast<std::size_t>(i)]; p && rows > 0 && cols > 0)
        thumbs[static_cast<std::size_t>(i)] = downsample(p, rows, cols, cells);
  };
  if (static_cast<long long>(n) * rows * cols > (1 << 22)) {
    std::thread helper(work, 1, 2);
    work(0, 2);
    helper.join();
  } else {
    work(0, 1);
  }
  return thumbs;
}

HeadGrid::HeadGrid(QWidget* parent) : PlotWidget(parent) {
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(6, 4, 6, 0);
  m_layerBox = new QSpinBox(this);
  m_headBox = new QSpinBox(this);
  m_layerBox->setPrefix(tr("layer "));
  m_headBox->setPrefix(tr("head "));
  auto* open = new QPushButton(tr("Open"), this);
  bar->addWidget(new QLabel(tr("Select:"), this));
  bar->addWidget(m_layerBox);
  bar->addWidget(m_headBox);
  bar->addWidget(open);
  bar->addStretch(1);
  controlsLayout()->insertLayout(0, bar);
  auto follow = [this] { setSelected(m_layerBox->value(), m_headBox->value()); };
  connect(m_layerBox, qOverload<int>(&QSpinBox::valueChanged), this, follow);
  connect(m_headBox, qOverload<int>(&QSpinBox::valueChanged), this, follow);
  connect(open, &QPushButton::clicked, this, [this] { emit headActivated(m_selLayer, m_selHead); });
  connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
    int layer = 0, head = 0;
    if (!headAt(event->position(), &layer, &head)) return;
    setSelected(layer, head);
    emit headActivated(layer, head);
  });

  // A right click over a head goes to the owner (headContextMenuRequested): the plot's own
  // policy turns the context-menu event into a signal with the pixel under the pointer.
  m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_plot, &QWidget::customContextMenuRequested, this, [this](const QPoint& pixel) {
    int layer = 0, head = 0;
    if (headAt(pixel, &layer, &head))
      emit headContextMenuRequested(layer, head, m_plot->mapToGlobal(pixel));
  });

  m_plot->yAxis->setRangeReversed(true);  // layer 0 on top
  m_plot->xAxis->grid()->setVisible(false);
  m_plot->yAxis->grid()->setVisible(false);
  m_plot->xAxis->setLabel(tr("head"));
  m_plot->yAxis->setLabel(tr("layer"));
  m_selection = new QCPItemRect(m_plot);
  m_selection->setBrush(Qt::NoBrush);
  m_selection->setVisible(false);
  setTheme(m_theme);
}

void HeadGrid::setColumnsPerHead(bool perHead, const QString& label) {
  if (perHead == m_columnsPerHead && (perHead || m_plot->xAxis->label() == label)) return;
  m_columnsPerHead = perHead;
  m_plot->xAxis->setLabel(perHead ? tr("head") : label);
  m_headBox->setVisible(perHead);
  rebuild();
}

void HeadGrid::setHeads(int layers, int heads, const std::vector<Matrix>& matrices) {
  m_layers = std::max(0, layers);
  m_heads = std::max(0, heads);
  m_thumbs.clear();
  m_cells = 0;
  for (int i = 0; i < m_layers * m_heads; ++i) {
    const Matrix& m = i < static_cast<int>(matrices.size()) ? matrices[i] : Matrix();
    m_thumbs.push_back(m.isValid() ? downsample(m, m_maxCells) : Matrix(1, 1, 0.0f));
    m_cells = std::max({m_cells, m_thumbs.back().rows, m_thumbs.back().cols});
  }
  m_layerBox->setRange(0, std::max(0, m_layers - 1));
  m_headBox->setRange(0, std::max(0, m_heads - 1));
  rebuild();
}

void HeadGrid::setHeads(int layers, int heads, const std::vector<const float*>& matrices, int rows,
                        int cols) {
  const int n = std::max(0, layers) * std::max(0, heads);
  std::vector<const float*> pointers(static_cast<std::size_t>(n), nullptr);
  for (int i = 0; i < n && i < static_cast<int>(matrices.size()); ++i)
    pointers[static_cast<std::size_t>(i)] = matrices[static_cast<std::size_t>(i)];
  setThumbnails(layers, heads, headThumbnails(pointers, rows, cols, m_maxCells));
}

void HeadGrid::setThumbnails(int layers, int heads, const std::vector<Matrix>& thumbnails) {
  m_layers = std::max(0, layers);
  m_heads = std::max(0, heads);
  const int n = m_layers * m_heads;
  m_thumbs.assign(static_cast<std::size_t>(n), Matrix(1, 1, 0.0f));
  for (int i = 0; i < n && i < static_cast<int>(thumbnails.size()); ++i)
    if (thumbnails[static_cast<std::size_t>(i)].isValid())
      m_thumbs[static_cast<std::size_t>(i)] = thumbnails[static_cast<std::size_t>(i)];
  m_cells = 0;
  for (const Matrix& t : m_thumbs) m_cells = std::max({m_cells, t.rows, t.cols});
  m_layerBox->setRange(0, std::max(0, m_layers - 1));
  m_headBox->setRange(0, std::max(0, m_heads - 1));
  rebuild();
}

void HeadGrid::setNormalisePerHead(bool on) {
  m_perHead = on;
  rebuild();
}

void HeadGrid::setThumbnailResolution(int cells) {
  m_maxCells = std::max(4, cells);
}

void HeadGrid::setColourMap(ColourMap map) {
  m_colourMap = map;
  if (m_diverging) return;  // the theme's map returns with the next probability maps
  const QCPColorGradient g = colourGradient(map);
  for (QCPColorMap* m : m_maps) m->setGradient(g);
}

void HeadGrid::rebuild() {
  for (QCPColorMap* m : m_maps) m_plot->removePlottable(m);
  m_maps.clear();
  // Magnitudes on the diverging scale (signed maps), values on the sequential one.
  const auto magnitude = [this](float v) { return m_diverging ? std::abs(double(v)) : double(v); };
  double globalMax = 0.0;
  for (const Matrix& m : m_thumbs)
    for (float v : m.values) globalMax = std::max(globalMax, magnitude(v));
  const QCPColorGradient gradient = m_diverging ? divergingGradient() : colourGradient(m_colourMap);
  for (int l = 0; l < m_layers; ++l) {
    for (int h = 0; h < m_heads; ++h) {
      const Matrix& t = m_thumbs[static_cast<std::size_t>(l) * m_heads + h];
      auto* map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
      map->setInterpolate(false);
      map->setGradient(gradient);
      // Cell centres inside [x0, x0 + 1] x [y0, y0 + 1]: the image fills exactly one slot.
      const double x0 = h * slot(), y0 = l * slot();
      const double hx = 0.5 / t.cols, hy = 0.5 / t.rows;
      QCPColorMapData* d = map->data();
      d->setSize(t.cols, t.rows);
      d->setRange(t.cols > 1 ? QCPRange(x0 + hx, x0 + 1 - hx) : QCPRange(x0, x0 + 1),
                  t.rows > 1 ? QCPRange(y0 + hy, y0 + 1 - hy) : QCPRange(y0, y0 + 1));
      double hi = 0.0;
      for (int r = 0; r < t.rows; ++r)
        for (int c = 0; c < t.cols; ++c) {
          d->setCell(c, r, t.at(r, c));
          hi = std::max(hi, magnitude(t.at(r, c)));
        }
      const double top = (m_perHead ? hi : globalMax) > 0 ? (m_perHead ? hi : globalMax) : 1.0;
      map->setDataRange(QCPRange(m_diverging ? -top : 0.0, top));
      m_maps.push_back(map);
    }
  }
  auto xt = QSharedPointer<QCPAxisTickerText>::create();
  if (m_columnsPerHead)
    for (int h = 0; h < m_heads; ++h) xt->addTick(h * slot() + 0.5, QString::number(h));
  auto yt = QSharedPointer<QCPAxisTickerText>::create();
  for (int l = 0; l < m_layers; ++l) yt->addTick(l * slot() + 0.5, QString::number(l));
  m_plot->xAxis->setTicker(xt);
  m_plot->yAxis->setTicker(yt);
  m_plot->xAxis->setRange(-m_gap, std::max(1, m_heads) * slot());
  m_plot->yAxis->setRange(-m_gap, std::max(1, m_layers) * slot());
  setSelected(std::min(m_selLayer, std::max(0, m_layers - 1)),
              std::min(m_selHead, std::max(0, m_heads - 1)));
}

void HeadGrid::setSelected(int layer, int head) {
  m_selLayer = layer;
  m_selHead = head;
  const QSignalBlocker a(m_layerBox), b(m_headBox);
  m_layerBox->setValue(layer);
  m_headBox->setValue(head);
  placeSelection();
  requestReplot();
}

void HeadGrid::placeSelection() {
  const bool valid =
      m_selLayer >= 0 && m_selLayer < m_layers && m_selHead >= 0 && m_selHead < m_heads;
  m_selection->setVisible(valid);
  if (!valid) return;
  const double pad = m_gap * 0.4;
  m_selection->topLeft->setCoords(m_selHead * slot() - pad, m_selLayer * slot() - pad);
  m_selection->bottomRight->setCoords(m_selHead * slot() + 1 + pad, m_selLayer * slot() + 1 + pad);
}

bool HeadGrid::headAt(const QPointF& pixel, int* layer, int* head) const {
  if (!m_plot->axisRect()->rect().contains(pixel.toPoint())) return false;
  const double x = m_plot->xAxis->pixelToCoord(pixel.x());
  const double y = m_plot->yAxis->pixelToCoord(pixel.y());
  if (x < 0 || y < 0) return false;
  const int h = static_cast<int>(x / slot()), l = static_cast<int>(y / slot());
  if (h >= m_heads || l >= m_layers) return false;
  if (x - h * slot() > 1.0 || y - l * slot() > 1.0) return false;  // in a gap
  *layer = l;
  *head = h;
  return true;
}

bool HeadGrid::handlesContextMenuAt(const QPoint& globalPos) const {
  int layer = 0, head = 0;
  return isSignalConnected(QMetaMethod::fromSignal(&HeadGrid::headContextMenuRequested)) &&
         headAt(m_plot->mapFromGlobal(QPointF(globalPos)), &layer, &head);
}

void HeadGrid::applyThemeToContent() {
  m_selection->setPen(QPen(m_theme.accent, 2.5));
}

}  // namespace attnlab::widgets
