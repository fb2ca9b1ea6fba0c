#include "widgets/plots/violin_grid.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnlab::widgets {

ViolinScale ViolinScale::entropyNats() {
  return {QStringLiteral("entropy"), QStringLiteral("nats"), 1.5, 4.5, 0.0, 1e300};
}

ViolinScale ViolinScale::jsdBits() {
  return {QStringLiteral("JSD"), QStringLiteral("bits"), 0.25, 0.75, 0.0, 1.0};
}

QString ViolinScale::axisLabel() const {
  return unit.isEmpty() ? quantity : QStringLiteral("%1 (%2)").arg(quantity, unit);
}

ViolinClass ViolinScale::classify(double median) const {
  if (median > highThreshold) return ViolinClass::Red;
  if (median < lowThreshold) return ViolinClass::Blue;
  return ViolinClass::Yellow;
}

/// All violins of one row, drawn directly with the painter: one polygon and three short
/// lines each, instead of several QCP plottables per violin (144 violins stay one object
/// per row, which keeps build and replot fast).
class ViolinRowPlottable : public QCPAbstractPlottable {
 public:
  struct Violin {
    double x = 0;
    const ViolinStats* stats = nullptr;
    QColor fill;
  };

  ViolinRowPlottable(QCPAxis* key, QCPAxis* value) : QCPAbstractPlottable(key, value) {}

  std::vector<Violin> violins;
  QColor edge;
  double halfWidth = 0.42;  // of one head slot

  double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }
  QCPRange getKeyRange(bool& found, QCP::SignDomain) const override {
    found = !violins.empty();
    return {-0.5, violins.empty() ? 0.5 : violins.size() - 0.5};
  }
  QCPRange getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const override {
    double lo = 1e300, hi = -1e300;
    for (const Violin& v : violins) {
      if (v.stats->density.x.empty()) continue;
      lo = std::min(lo, v.stats->density.x.front());
      hi = std::max(hi, v.stats->density.x.back());
    }
    found = hi >= lo;
    return found ? QCPRange(lo, hi) : QCPRange(0, 1);
  }

 protected:
  void draw(QCPPainter* painter) override {
    QCPAxis* key = mKeyAxis.data();
    QCPAxis* value = mValueAxis.data();
    if (!key || !value) return;
    painter->setRenderHint(QPainter::Antialiasing, true);
    for (const Violin& v : violins) {
      const Density& d = v.stats->density;
      if (d.x.size() < 2) continue;
      const double peak = *std::max_element(d.y.begin(), d.y.end());
      if (!(peak > 0)) continue;
      const double scale = halfWidth / peak;
      QPolygonF shape;
      shape.reserve(static_cast<int>(2 * d.x.size()));
      for (std::size_t i = 0; i < d.x.size(); ++i)
        shape << QPointF(key->coordToPixel(v.x - d.y[i] * scale), value->coordToPixel(d.x[i]));
      for (std::size_t i = d.x.size(); i-- > 0;)
        shape << QPointF(key->coordToPixel(v.x + d.y[i] * scale), value->coordToPixel(d.x[i]));
      painter->setPen(QPen(edge, 0.8));
      painter->setBrush(v.fill);
      painter->drawPolygon(shape);
      // Median and quartiles as lines across the violin at its width there.
      auto widthAt = [&](double y) {
        const auto it = std::lower_bound(d.x.begin(), d.x.end(), y);
        if (it == d.x.begin() || it == d.x.end()) return 0.0;
        const std::size_t i = it - d.x.begin();
        const double t = (y - d.x[i - 1]) / (d.x[i] - d.x[i - 1]);
        return (d.y[i - 1] + t * (d.y[i] - d.y[i - 1])) * scale;
      };
      auto mark = [&](double y, const QPen& pen) {
        if (!std::isfinite(y)) return;
        const double w = std::max(widthAt(y), 0.08);
        painter->setPen(pen);
        painter->drawLine(QPointF(key->coordToPixel(v.x - w), value->coordToPixel(y)),
                          QPointF(key->coordToPixel(v.x + w), value->coordToPixel(y)));
      };
      const Quartiles& q = v.stats->quartiles;
      mark(q.q1, QPen(edge, 1.0, Qt::DashLine));
      mark(q.q3, QPen(edge, 1.0, Qt::DashLine));
      mark(q.median, QPen(edge, 2.0));
    }
  }
  void drawLegendIcon(QCPPainter*, const QRectF&) const override {}
};

ViolinGrid::ViolinGrid(QWidget* parent) : PlotWidget(parent) {
  // The default legend becomes the colour key below the rows.
  m_plot->axisRect()->insetLayout()->take(m_plot->legend);
  m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  m_plot->legend->setVisible(true);
  setTheme(m_theme);
}

void ViolinGrid::setScale(const ViolinScale& scale) {
  m_scale = scale;
  rebuild();
}

void ViolinGrid::setSamples(int rows, int heads, const std::vector<std::vector<double>>& samples) {
  std::vector<ViolinStats> stats(static_cast<std::size_t>(std::max(0, rows * heads)));
  DensityOptions o;
  o.lowerBound = m_scale.lowerBound;
  o.upperBound = m_scale.upperBound;
  for (std::size_t i = 0; i < stats.size() && i < samples.size(); ++i)
    stats[i] = violinStats(samples[i], o);
  setStats(rows, heads, std::move(stats));
}

void ViolinGrid::setStats(int rows, int heads, std::vector<ViolinStats> stats) {
  m_rows = std::max(0, rows);
  m_heads = std::max(0, heads);
  stats.resize(static_cast<std::size_t>(m_rows) * m_heads);
  m_stats = std::move(stats);
  rebuild();
}

void ViolinGrid::setRowLabels(const QStringList& labels) {
  m_rowLabels = labels;
  rebuild();
}

int ViolinGrid::violinCount() const {
  int n = 0;
  for (const ViolinRowPlottable* row : m_rowPlots) n += static_cast<int>(row->violins.size());
  return n;
}

std::vector<int> ViolinGrid::headOrder(int row) const {
  std::vector<int> order(m_heads);
  std::iota(order.begin(), order.end(), 0);
  auto median = [&](int h) {
    const double m = m_stats[static_cast<std::size_t>(row) * m_heads + h].quartiles.median;
    return std::isfinite(m) ? m : 1e300;  // heads without data go last
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return median(a) < median(b); });
  return order;
}

ViolinClass ViolinGrid::violinClass(int row, int head) const {
  return m_scale.classify(m_stats[static_cast<std::size_t>(row) * m_heads + head].quartiles.median);
}

QCPAxisRect* ViolinGrid::rowRect(int row) const {
  return row >= 0 && row < static_cast<int>(m_rects.size()) ? m_rects[row] : nullptr;
}

void ViolinGrid::rebuild() {
  // Rows are rebuilt from scratch: a new shape (rows x heads) is rare and cheap at 12 x 12.
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_rowPlots.clear();
  m_plot->legend->clearItems();
  if (m_plot->legend->layout()) m_plot->legend->layout()->take(m_plot->legend);
  QCPLayoutGrid* grid = content();
  grid->clear();  // deletes the previous rows' axis rects
  m_rects.clear();
  delete m_group;  // its members are gone with the rows
  m_group = nullptr;
  if (m_rows == 0 || m_heads == 0) {
    grid->addElement(0, 0, new QCPAxisRect(m_plot));
    m_rects.push_back(static_cast<QCPAxisRect*>(grid->element(0, 0)));
    applyTheme(*m_plot, m_theme);
    return;
  }
  // Shared value range: rows are comparable at a glance.
  double lo = 1e300, hi = -1e300;
  for (const ViolinStats& s : m_stats) {
    if (s.density.x.empty()) continue;
    lo = std::min(lo, s.density.x.front());
    hi = std::max(hi, s.density.x.back());
  }
  if (!(hi > lo)) lo = 0, hi = 1;
  lo = std::max(lo, m_scale.lowerBound);
  if (m_scale.upperBound < 1e299 && m_scale.lowerBound == 0.0 && m_scale.upperBound == 1.0)
    lo = 0, hi = 1;  // a bounded quantity shows its whole scale
  const double pad = 0.04 * (hi - lo);

  m_group = new QCPMarginGroup(m_plot);
  QCPMarginGroup* group = m_group;
  grid->setRowSpacing(2);
  for (int r = 0; r < m_rows; ++r) {
    auto* rect = new QCPAxisRect(m_plot);
    grid->addElement(r, 0, rect);
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    rect->setRangeDrag(Qt::Orientations());
    rect->setRangeZoom(Qt::Orientations());
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    x->grid()->setVisible(false);
    x->setRange(-0.5, m_heads - 0.5);
    y->setRange(lo - pad, hi + pad);
    y->ticker()->setTickCount(3);
    const QString rowName =
        r < m_rowLabels.size() ? m_rowLabels.at(r) : QStringLiteral("L%1").arg(r);
    y->setLabel(QStringLiteral("%1\n%2").arg(rowName, m_scale.unit));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const std::vector<int> order = headOrder(r);
    auto* row = new ViolinRowPlottable(x, y);
    row->removeFromLegend();
    for (int slot = 0; slot < m_heads; ++slot) {
      const int h = order[slot];
      ticker->addTick(slot, QStringLiteral("h%1").arg(h));
      const ViolinStats& s = m_stats[static_cast<std::size_t>(r) * m_heads + h];
      if (s.count == 0) continue;
      row->violins.push_back({double(slot), &s, {}});
    }
    x->setTicker(ticker);
    if (r == m_rows - 1) x->setLabel(QStringLiteral("head (ordered by median within the row)"));
    // The class thresholds as faint reference lines.
    for (double t : {m_scale.lowThreshold, m_scale.highThreshold}) {
      if (t < lo - pad || t > hi + pad) continue;
      auto* line = new QCPItemStraightLine(m_plot);
      line->setClipAxisRect(rect);
      line->point1->setAxes(x, y);
      line->point2->setAxes(x, y);
      line->point1->setCoords(-1, t);
      line->point2->setCoords(m_heads, t);
      line->setProperty("threshold", true);
    }
    m_rects.push_back(rect);
    m_rowPlots.push_back(row);
  }
  // Colour key: empty graphs whose legend icons carry the class colours.
  QCPAxisRect* first = m_rects.front();
  const QString u = m_scale.unit.isEmpty() ? QString() : QStringLiteral(" ") + m_scale.unit;
  const QStringList names = {
      QStringLiteral("median < %1%2").arg(m_scale.lowThreshold).arg(u),
      QStringLiteral("%1 to %2%3").arg(m_scale.lowThreshold).arg(m_scale.highThreshold).arg(u),
      QStringLiteral("median > %1%2").arg(m_scale.highThreshold).arg(u)};
  for (int i = 0; i < 3; ++i) {
    auto* key = new QCPBars(first->axis(QCPAxis::atBottom), first->axis(QCPAxis::atLeft));
    key->setName(names.at(i));
    key->setProperty("violinClass", i);
  }
  grid->addElement(m_rows, 0, m_plot->legend);
  grid->setRowStretchFactor(m_rows, 0.01);
  m_plot->legend->setMargins(QMargins(4, 2, 4, 2));
  applyTheme(*m_plot, m_theme);
  applyThemeToContent();
}

void ViolinGrid::applyThemeToContent() {
  const QColor classes[] = {m_theme.classLow, m_theme.classMid, m_theme.classHigh};
  for (std::size_t r = 0; r < m_rowPlots.size(); ++r) {
    ViolinRowPlottable* row = m_rowPlots[r];
    row->edge = m_theme.foreground;
    for (auto& v : row->violins) {
      QColor c = classes[static_cast<int>(m_scale.classify(v.stats->quartiles.median))];
      c.setAlpha(215);
      v.fill = c;
    }
  }
  for (int i = 0; i < m_plot->plottableCount(); ++i) {
    auto* bars = qobject_cast<QCPBars*>(m_plot->plottable(i));
    if (!bars) continue;
    const int cls = bars->property("violinClass").toInt();
    bars->setBrush(classes[cls]);
    bars->setPen(QPen(m_theme.foreground, 0.8));
  }
  for (int i = 0; i < m_plot->itemCount(); ++i) {
    if (auto* line = qobject_cast<QCPItemStraightLine*>(m_plot->item(i)))
      line->setPen(QPen(m_theme.grid, 1, Qt::DashLine));
  }
}

}  // namespace attnlab::widgets
