#include "app/gui/panels/variants_panel.h"

#include "app/gui/panels/figure_files.h"
#include "app/gui/panels/followed_run.h"
#include "app/gui/panels/placeholder_stack.h"
#include "app/gui/panels/plot_grid.h"
#include "app/gui/panels/refresh_throttle.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace attnlab::app {

namespace {
constexpr int kMinPlotHeight = 280;
constexpr int kColumns = 2;
// Up to this many rows read as lines with a legend; more (per-head series) as an image.
constexpr int kMaxLineRows = 16;

// Sorted by name, except that the temperatures read q, k, v as in the attention formula.
QString orderKey(const QString& name) {
  static const QStringList qkv = {QStringLiteral("temperature/q"), QStringLiteral("temperature/k"),
                                  QStringLiteral("temperature/v")};
  const qsizetype i = qkv.indexOf(name);
  return i < 0 ? name : QStringLiteral("temperature/%1").arg(i);
}

// The attention-health stream's series (health/...) belong to the Health tab; this tab shows
// the mechanisms' own.
bool isMechanismSeries(const QString& name) {
  return !name.startsWith(QStringLiteral("health/"));
}

bool hasRows(const LayerSeries& s) {
  return s.rowSize() > 0 && !s.steps.empty() &&
         s.values.size() >= static_cast<std::size_t>(s.rowSize());
}
}  // namespace

widgets::Matrix VariantsPanel::rowsOverSteps(const LayerSeries& series) {
  const std::int64_t rowSize = series.rowSize();
  if (rowSize <= 0) return {};
  const std::size_t n =
      std::min(series.steps.size(), series.values.size() / static_cast<std::size_t>(rowSize));
  widgets::Matrix m(static_cast<int>(rowSize), static_cast<int>(n), 0.0f);
  for (std::size_t i = 0; i < n; ++i)
    for (std::int64_t r = 0; r < rowSize; ++r)
      m.at(static_cast<int>(r), static_cast<int>(i)) =
          series.values[i * static_cast<std::size_t>(rowSize) + static_cast<std::size_t>(r)];
  return m;
}

QStringList VariantsPanel::rowLabels(const LayerSeries& series) {
  QStringList labels;
  const auto& shape = series.innerShape;
  if (shape.size() == 2) {
    for (std::int64_t l = 0; l < shape[0]; ++l)
      for (std::int64_t h = 0; h < shape[1]; ++h) labels << QStringLiteral("L%1 H%2").arg(l).arg(h);
  } else if (shape.size() == 1) {
    for (std::int64_t l = 0; l < shape[0]; ++l) labels << QStringLiteral("L%1").arg(l);
  } else {
    for (std::int64_t i = 0; i < series.rowSize(); ++i) labels << QString::number(i);
  }
  return labels;
}

VariantsPanel::VariantsPanel(QWidget* parent) : QWidget(parent) {
  m_refresh = new RefreshThrottle(this, [this] { refresh(); });
  m_page = new PlaceholderStack(QStringLiteral("variantsPlaceholder"), this);
  // The View box belongs to the plots: hidden with them while the placeholder shows.
  QVBoxLayout* layout = m_page->fillParentWithColumn();
  QWidget* content = m_page->content();
  layout->addLayout(buildToolbar(content));
  m_grid = new PlotGrid(kColumns, content);
  layout->addWidget(m_grid, 1);

  connect(m_viewBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
    for (auto& [name, plot] : m_plots) plot->setView(viewFor(plot->seriesCount()));
  });
  updatePlaceholder();
}

QHBoxLayout* VariantsPanel::buildToolbar(QWidget* content) {
  auto* bar = new QHBoxLayout;
  auto* viewTitle = new QLabel(QStringLiteral("View"), content);
  m_viewBox = new QComboBox(content);
  m_viewBox->setObjectName(QStringLiteral("variantsView"));
  m_viewBox->addItem(QStringLiteral("Automatic"), static_cast<int>(View::Automatic));
  m_viewBox->addItem(QStringLiteral("Lines"), static_cast<int>(View::Lines));
  m_viewBox->addItem(QStringLiteral("Heatmap"), static_cast<int>(View::Heatmap));
  m_viewBox->setToolTip(QStringLiteral(
      "Lines: one line per layer (or head) over steps. Heatmap: rows over steps as an image. "
      "Automatic: lines for per-layer series, a heatmap for per-head ones."));
  viewTitle->setBuddy(m_viewBox);
  bar->addWidget(viewTitle);
  bar->addWidget(m_viewBox);
  bar->addStretch(1);
  return bar;
}

VariantsPanel::~VariantsPanel() = default;

bool VariantsPanel::hasContent() const {
  if (!m_run) return false;
  for (const auto& [name, series] : m_run->layerSeries())
    if (isMechanismSeries(name)) return true;
  return false;
}

void VariantsPanel::setView(View view) {
  m_viewBox->setCurrentIndex(m_viewBox->findData(static_cast<int>(view)));
}

VariantsPanel::View VariantsPanel::view() const {
  return static_cast<View>(m_viewBox->currentData().toInt());
}

widgets::LayerSeriesView VariantsPanel::viewFor(int rows) const {
  switch (view()) {
    case View::Lines:
      return widgets::LayerSeriesView::Lines;
    case View::Heatmap:
      return widgets::LayerSeriesView::Heatmap;
    case View::Automatic:
      break;
  }
  return rows <= kMaxLineRows ? widgets::LayerSeriesView::Lines : widgets::LayerSeriesView::Heatmap;
}

void VariantsPanel::setRuns(const QList<RunSession*>& runs) {
  RunSession* run = firstOpenRun(runs);
  if (!switchFollowedRun(m_run, run, this)) return;
  if (run != nullptr) {
    connect(run, &RunSession::layerSeriesChanged, this, [this](const QStringList& names) {
      for (const QString& n : names)
        if (isMechanismSeries(n)) m_pending.insert(n);
      noteContent();  // at once: the window may show the tab while this panel is hidden
      m_refresh->request();
    });
    connect(run, &QObject::destroyed, this, [this] {
      m_rebuildPending = true;
      noteContent();
      m_refresh->request();
    });
  }
  m_rebuildPending = true;
  noteContent();
  if (isVisible()) refresh();
}

void VariantsPanel::noteContent() {
  const bool now = hasContent();
  if (now == m_hadContent) return;
  m_hadContent = now;
  emit contentChanged(now);
}

void VariantsPanel::setTheme(const widgets::Theme& theme) {
  m_theme = theme;
  for (auto& [name, plot] : m_plots) plot->setTheme(theme);
}

QStringList VariantsPanel::seriesNames() const {
  return m_order;
}

widgets::LayerSeriesPlot* VariantsPanel::plotFor(const QString& series) const {
  const auto it = m_plots.find(series);
  return it == m_plots.end() ? nullptr : it->second;
}

void VariantsPanel::refresh() {
  m_refresh->cancel();
  if (!isVisible()) return;
  if (m_rebuildPending)
    rebuild();
  else
    updatePending();
  updatePlaceholder();
}

void VariantsPanel::rebuild() {
  m_rebuildPending = false;
  m_pending.clear();
  for (auto& [name, plot] : m_plots) delete plot;
  m_plots.clear();
  if (m_run)
    for (const auto& [name, series] : m_run->layerSeries())
      if (isMechanismSeries(name) && hasRows(series)) fill(addPlot(name), series);
  relayoutGrid();
}

void VariantsPanel::updatePending() {
  if (m_pending.isEmpty() || !m_run) return;
  const QSet<QString> pending = std::exchange(m_pending, {});
  bool added = false;
  for (const QString& name : pending) {
    const auto it = m_run->layerSeries().find(name);
    if (it == m_run->layerSeries().end() || !hasRows(it->second)) continue;
    widgets::LayerSeriesPlot* plot = plotFor(name);
    if (plot == nullptr) {
      plot = addPlot(name);
      added = true;
    }
    // One row per logging step and a few dozen values each: redrawing the whole series is
    // cheaper than keeping an append path for it.
    fill(plot, it->second);
  }
  if (added) relayoutGrid();
}

widgets::LayerSeriesPlot* VariantsPanel::addPlot(const QString& name) {
  auto* plot = new widgets::LayerSeriesPlot(m_grid->host());
  plot->setObjectName(QStringLiteral("variants:") + name);
  plot->setMinimumHeight(kMinPlotHeight);
  plot->setTheme(m_theme);
  m_plots[name] = plot;
  return plot;
}

void VariantsPanel::fill(widgets::LayerSeriesPlot* plot, const LayerSeries& series) {
  const widgets::Matrix rows = rowsOverSteps(series);
  plot->setTitle(series.meaning.isEmpty() ? series.name : series.meaning);
  plot->setToolTip(series.name);
  plot->setRowAxisTitle(series.innerShape.size() == 2 ? QStringLiteral("layer, head")
                                                      : QStringLiteral("layer"));
  const widgets::LayerSeriesView wanted = viewFor(rows.rows);
  if (plot->view() != wanted) plot->setView(wanted);
  plot->setSeries(series.name, series.unit, series.steps, rows, rowLabels(series));
}

void VariantsPanel::relayoutGrid() {
  m_order.clear();
  for (const auto& [name, plot] : m_plots) m_order << name;
  std::sort(m_order.begin(), m_order.end(),
            [](const QString& a, const QString& b) { return orderKey(a) < orderKey(b); });
  QList<QWidget*> plots;
  for (const QString& name : m_order) plots << m_plots[name];
  m_grid->setPlots(plots);  // a lone plot takes the width
}

void VariantsPanel::updatePlaceholder() {
  if (!m_run)
    m_page->showPlaceholder(QStringLiteral("Select a run in the Runs list to see its variants."));
  else if (!hasContent())
    m_page->showPlaceholder(QStringLiteral("This run logs no variant quantities."));
  else if (m_plots.empty())
    m_page->showPlaceholder(
        QStringLiteral("The variants' per-layer quantities appear with the first logged step."));
  else
    m_page->showContent();
}

QString VariantsPanel::exportCurrentFigure(const QString& path,
                                           const widgets::ExportOptions& options) {
  return exportPlotFile(seriesNames().isEmpty() ? nullptr : plotFor(seriesNames().first()), path,
                        options);
}

}  // namespace attnlab::app
