#include "widgets/plots/violin_grid.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <span>
#include <stdexcept>
#include <string>

#include "analysis/attention/attention_statistics.h"

namespace attnlab::widgets {
namespace {

constexpr double kUnbounded = 1e299;  // |bound| beyond this: the quantity has no bound there

bool bounded(const ViolinScale& s) {
  return s.lowerBound > -kUnbounded && s.upperBound < kUnbounded;
}

}  // namespace

ViolinScale ViolinScale::entropyNats() {
  return {QStringLiteral("entropy"), QStringLiteral("nats"), analysis::kEntropyColourThresholds,
          0.0, 1e300};
}

ViolinScale ViolinScale::jsdBits() {
  return {QStringLiteral("JSD"), QStringLiteral("bits"),
          analysis::jsdColourThresholds(analysis::LogBase::Bits), 0.0, 1.0};
}

ViolinScale ViolinScale::jsdNats() {
  return {QStringLiteral("JSD"), QStringLiteral("nats"),
          analysis::jsdColourThresholds(analysis::LogBase::Nats), 0.0, std::numbers::ln2};
}

QString ViolinScale::axisLabel() const {
  return unit.isEmpty() ? quantity : QStringLiteral("%1 (%2)").arg(quantity, unit);
}

analysis::ColourClass ViolinScale::classify(double median) const {
  return analysis::colourClass(median, thresholds);
}

std::vector<analysis::DistributionSummary> summariseSamples(
    const std::vector<std::vector<double>>& samples, const ViolinScale& scale) {
  // One range for the whole grid, as the analysis uses one per quantity: every violin then
  // has the same resolution.
  double lo = scale.lowerBound, hi = scale.upperBound;
  if (!(lo > -kUnbounded) || !(hi < kUnbounded)) {
    double least = 1e300, most = -1e300;
    for (const auto& head : samples) {
      for (const double x : head) {
        if (!std::isfinite(x)) continue;
        least = std::min(least, x);
        most = std::max(most, x);
      }
    }
    if (!(lo > -kUnbounded)) lo = least <= most ? least : 0.0;
    if (!(hi < kUnbounded)) hi = least <= most ? most : lo + 1.0;
  }
  if (!(hi > lo)) hi = lo + std::max(1.0, std::abs(lo));  // one repeated value
  std::vector<analysis::DistributionSummary> out;
  out.reserve(samples.size());
  for (const auto& head : samples) {
    analysis::StreamingDistribution d(lo, hi);
    d.addMany(std::span<const double>(head));
    out.push_back(d.summarise());
  }
  return out;
}

/// All violins of one row, drawn directly with the painter: one polygon and three short
/// lines each, instead of several QCP plottables per violin (144 violins stay one object
/// per row, which keeps build and replot fast).
class ViolinRowPlottable : public QCPAbstractPlottable {
 public:
  struct Violin {
    double x = 0;
    const analysis::DistributionSummary* summary = nullptr;
    analysis::ColourClass colour = analysis::ColourClass::None;
    // The outline: density (any scale) at increasing values, from the summary's KDE or,
    // where it has none, its histogram as steps.
    std::vector<double> at, density;
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
      if (v.at.empty()) continue;
      lo = std::min(lo, v.at.front());
      hi = std::max(hi, v.at.back());
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
      const std::vector<double>& ys = v.at;
      const std::vector<double>& ds = v.density;
      const double peak = ds.empty() ? 0.0 : *std::max_element(ds.begin(), ds.end());
      const double scale = peak > 0 ? halfWidth / peak : 0.0;
      if (ys.size() >= 2 && peak > 0) {
        QPolygonF shape;
        shape.reserve(static_cast<int>(2 * ys.size()));
        for (std::size_t i = 0; i < ys.size(); ++i)
          shape << QPointF(key->coordToPixel(v.x - ds[i] * scale), value->coordToPixel(ys[i]));
        for (std::size_t i = ys.size(); i-- > 0;)
          shape << QPointF(key->coordToPixel(v.x + ds[i] * scale), value->coordToPixel(ys[i]));
        painter->setPen(QPen(edge, 0.8));
        painter->setBrush(v.fill);
        painter->drawPolygon(shape);
      }
      // Median and quartiles as lines across the violin at its width there.
      auto widthAt = [&](double y) {
        const auto it = std::lower_bound(ys.begin(), ys.end(), y);
        if (it == ys.end() || (it == ys.begin() && *it != y)) return 0.0;
        const std::size_t i = it - ys.begin();
        if (i == 0) return ds[0] * scale;
        const double span = ys[i] - ys[i - 1];
        const double t = span > 0 ? (y - ys[i - 1]) / span : 1.0;
        return (ds[i - 1] + t * (ds[i] - ds[i - 1])) * scale;
      };
      auto mark = [&](double y, const QPen& pen) {
        if (!std::isfinite(y)) return;
        const double w = std::max(widthAt(y), 0.08);
        painter->setPen(pen);
        painter->drawLine(QPointF(key->coordToPixel(v.x - w), value->coordToPixel(y)),
                          QPointF(key->coordToPixel(v.x + w), value->coordToPixel(y)));
      };
      const analysis::DistributionSummary& s = *v.summary;
      mark(s.q1, QPen(edge, 1.0, Qt::DashLine));
      mark(s.q3, QPen(edge, 1.0, Qt::DashLine));
      mark(s.median, QPen(edge, 2.0));
    }
  }
  void drawLegendIcon(QCPPainter*, const QRectF&) const override {}
};

namespace {

// The outline of one violin from what the analysis summarised: the KDE as it is, or the
// coarse histogram (as density steps, within the values' [min, max]) when there is no KDE.
void outline(const analysis::DistributionSummary& s, std::vector<double>& at,
             std::vector<double>& density) {
  at.clear();
  density.clear();
  if (s.kdeX.size() >= 2 && s.kdeX.size() == s.kdeDensity.size()) {
    at = s.kdeX;
    density = s.kdeDensity;
    return;
  }
  if (s.count <= 0 || !(s.max > s.min)) return;
  for (std::size_t b = 0; b < s.histogramCounts.size() && b + 1 < s.histogramEdges.size(); ++b) {
    const double lo = std::max(s.histogramEdges[b], s.min);
    const double hi = std::min(s.histogramEdges[b + 1], s.max);
    if (!(hi > lo)) continue;
    const double width = s.histogramEdges[b + 1] - s.histogramEdges[b];
    const double d = static_cast<double>(s.histogramCounts[b]) / width;
    at.push_back(lo);
    density.push_back(d);
    at.push_back(hi);
    density.push_back(d);
  }
}

}  // namespace

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

void ViolinGrid::setSummaries(int rows, int heads,
                              std::vector<analysis::DistributionSummary> summaries,
                              std::vector<analysis::ColourClass> colours,
                              std::vector<std::vector<int>> headOrder) {
  rows = std::max(0, rows);
  heads = std::max(0, heads);
  const std::size_t cells = static_cast<std::size_t>(rows) * static_cast<std::size_t>(heads);
  if (!colours.empty() && colours.size() != cells) {
    throw std::invalid_argument("ViolinGrid::setSummaries: " + std::to_string(colours.size()) +
                                " colours for " + std::to_string(rows) + " x " +
                                std::to_string(heads) + " violins");
  }
  if (!headOrder.empty()) {
    if (headOrder.size() != static_cast<std::size_t>(rows)) {
      throw std::invalid_argument("ViolinGrid::setSummaries: head order for " +
                                  std::to_string(headOrder.size()) + " rows, not " +
                                  std::to_string(rows));
    }
    for (const std::vector<int>& order : headOrder) {
      std::vector<int> sorted = order;
      std::sort(sorted.begin(), sorted.end());
      bool permutation = sorted.size() == static_cast<std::size_t>(heads);
      for (std::size_t i = 0; permutation && i < sorted.size(); ++i)
        permutation = sorted[i] == static_cast<int>(i);
      if (!permutation) {
        throw std::invalid_argument(
            "ViolinGrid::setSummaries: a row's head order is not a "
            "permutation of its " +
            std::to_string(heads) + " heads");
      }
    }
  }
  m_rows = rows;
  m_heads = heads;
  summaries.resize(cells);
  m_summaries = std::move(summaries);
  m_colours = std::move(colours);
  m_order = std::move(headOrder);
  rebuild();
}

void ViolinGrid::showEntropy(const analysis::AttentionStatisticsResult& result) {
  m_scale = ViolinScale::entropyNats();
  m_rowLabels.clear();
  setSummaries(result.layers, result.heads, result.entropy, result.entropyColours,
               result.headOrder);
}

void ViolinGrid::showAdjacentJsd(const analysis::AttentionStatisticsResult& result) {
  m_scale =
      result.jsdBase == analysis::LogBase::Bits ? ViolinScale::jsdBits() : ViolinScale::jsdNats();
  m_rowLabels.clear();
  const int pairs = std::max(0, result.layers - 1);
  for (int l = 0; l < pairs; ++l) m_rowLabels << QStringLiteral("L%1-L%2").arg(l).arg(l + 1);
  setSummaries(pairs, result.heads, result.adjacentJsd, result.jsdColours);
}

void ViolinGrid::setSamples(int rows, int heads, const std::vector<std::vector<double>>& samples) {
  std::vector<std::vector<double>> used(
      samples.begin(),
      samples.begin() + static_cast<std::ptrdiff_t>(std::min(
                            samples.size(), static_cast<std::size_t>(std::max(0, rows * heads)))));
  setSummaries(rows, heads, summariseSamples(used, m_scale));
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

const analysis::DistributionSummary& ViolinGrid::summary(int row, int head) const {
  static const analysis::DistributionSummary empty;
  if (row < 0 || row >= m_rows || head < 0 || head >= m_heads) return empty;
  return m_summaries[static_cast<std::size_t>(row) * m_heads + head];
}

std::vector<int> ViolinGrid::headOrder(int row) const {
  if (row < 0 || row >= m_rows) return {};
  if (!m_order.empty()) return m_order[static_cast<std::size_t>(row)];
  return analysis::orderByMedian(
      std::span<const analysis::DistributionSummary>(m_summaries)
          .subspan(static_cast<std::size_t>(row) * m_heads, static_cast<std::size_t>(m_heads)));
}

analysis::ColourClass ViolinGrid::violinClass(int row, int head) const {
  if (row < 0 || row >= m_rows || head < 0 || head >= m_heads) return analysis::ColourClass::None;
  const std::size_t i = static_cast<std::size_t>(row) * m_heads + head;
  return m_colours.empty() ? m_scale.classify(m_summaries[i].median) : m_colours[i];
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
  // The violins' outlines first: they set the shared value range.
  std::vector<ViolinRowPlottable::Violin> violins(m_summaries.size());
  double lo = 1e300, hi = -1e300;
  for (std::size_t i = 0; i < m_summaries.size(); ++i) {
    const analysis::DistributionSummary& s = m_summaries[i];
    ViolinRowPlottable::Violin& v = violins[i];
    v.summary = &s;
    outline(s, v.at, v.density);
    if (s.count <= 0) continue;
    for (const double y : {s.min, s.max}) {
      if (!std::isfinite(y)) continue;
      lo = std::min(lo, y);
      hi = std::max(hi, y);
    }
    if (!v.at.empty()) {
      lo = std::min(lo, v.at.front());
      hi = std::max(hi, v.at.back());
    }
  }
  // Shared value range: rows are comparable at a glance; a bounded quantity shows its whole
  // scale.
  if (bounded(m_scale)) {
    lo = m_scale.lowerBound;
    hi = m_scale.upperBound;
  } else {
    if (!(hi >= lo)) lo = 0, hi = 1;
    lo = std::max(lo, m_scale.lowerBound);
    if (!(hi > lo)) hi = lo + 1;
  }
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
      const int h = order[static_cast<std::size_t>(slot)];
      ticker->addTick(slot, QStringLiteral("h%1").arg(h));
      const std::size_t i = static_cast<std::size_t>(r) * m_heads + h;
      if (m_summaries[i].count <= 0) continue;
      ViolinRowPlottable::Violin& v = violins[i];
      v.x = slot;
      v.colour = violinClass(r, h);
      row->violins.push_back(std::move(v));
    }
    x->setTicker(ticker);
    if (r == m_rows - 1) x->setLabel(QStringLiteral("head (ordered by median within the row)"));
    // The class thresholds as faint reference lines.
    for (double t : {m_scale.thresholds.low, m_scale.thresholds.high}) {
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
  const QString low = QString::number(m_scale.thresholds.low, 'g', 3);
  const QString high = QString::number(m_scale.thresholds.high, 'g', 3);
  const QStringList names = {QStringLiteral("median < %1%2").arg(low, u),
                             QStringLiteral("%1 to %2%3").arg(low, high, u),
                             QStringLiteral("median > %1%2").arg(high, u)};
  const analysis::ColourClass keyClasses[] = {
      analysis::ColourClass::Blue, analysis::ColourClass::Yellow, analysis::ColourClass::Red};
  for (int i = 0; i < 3; ++i) {
    auto* key = new QCPBars(first->axis(QCPAxis::atBottom), first->axis(QCPAxis::atLeft));
    key->setName(names.at(i));
    key->setProperty("violinClass", static_cast<int>(keyClasses[i]));
  }
  grid->addElement(m_rows, 0, m_plot->legend);
  grid->setRowStretchFactor(m_rows, 0.01);
  m_plot->legend->setMargins(QMargins(4, 2, 4, 2));
  applyTheme(*m_plot, m_theme);
  applyThemeToContent();
}

void ViolinGrid::applyThemeToContent() {
  auto colourOf = [&](analysis::ColourClass c) {
    switch (c) {
      case analysis::ColourClass::Blue:
        return m_theme.classLow;
      case analysis::ColourClass::Yellow:
        return m_theme.classMid;
      case analysis::ColourClass::Red:
        return m_theme.classHigh;
      case analysis::ColourClass::None:
        break;
    }
    return m_theme.grid;
  };
  for (ViolinRowPlottable* row : m_rowPlots) {
    row->edge = m_theme.foreground;
    for (auto& v : row->violins) {
      QColor c = colourOf(v.colour);
      c.setAlpha(215);
      v.fill = c;
    }
  }
  for (int i = 0; i < m_plot->plottableCount(); ++i) {
    auto* bars = qobject_cast<QCPBars*>(m_plot->plottable(i));
    if (!bars) continue;
    bars->setBrush(
        colourOf(static_cast<analysis::ColourClass>(bars->property("violinClass").toInt())));
    bars->setPen(QPen(m_theme.foreground, 0.8));
  }
  for (int i = 0; i < m_plot->itemCount(); ++i) {
    if (auto* line = qobject_cast<QCPItemStraightLine*>(m_plot->item(i)))
      line->setPen(QPen(m_theme.grid, 1, Qt::DashLine));
  }
}

}  // namespace attnlab::widgets
