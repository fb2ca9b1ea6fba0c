#include "app/gui/panels/curves_panel.h"

#include "app/gui/panels/figure_files.h"
#include "app/gui/panels/placeholder_stack.h"
#include "app/gui/panels/plot_grid.h"
#include "app/gui/panels/refresh_throttle.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace attnlab::app {

namespace {
constexpr int kMinPlotHeight = 250;
constexpr int kColumns = 2;

// Known scalars in the order a person reads them; others follow their group by name.
const QStringList& knownOrder() {
  static const QStringList order = {
      QStringLiteral("train/loss"),      QStringLiteral("train/total_loss"),
      QStringLiteral("train/accuracy"),  QStringLiteral("train/learning_rate"),
      QStringLiteral("train/grad_norm"), QStringLiteral("train/tokens_per_second"),
      QStringLiteral("eval/loss"),       QStringLiteral("eval/accuracy"),
  };
  return order;
}

int groupOf(const QString& scalar) {
  if (scalar.startsWith(QLatin1String("train/"))) return 0;
  if (scalar.startsWith(QLatin1String("eval/"))) return 1;
  return 2;
}
}  // namespace

bool CurvesPanel::scalarOrderLess(const QString& a, const QString& b) {
  const int ga = groupOf(a), gb = groupOf(b);
  if (ga != gb) return ga < gb;
  // Within a group: the known names in their order, then the rest alphabetically.
  const qsizetype ka = knownOrder().indexOf(a), kb = knownOrder().indexOf(b);
  const qsizetype ra = ka < 0 ? knownOrder().size() : ka;
  const qsizetype rb = kb < 0 ? knownOrder().size() : kb;
  if (ra != rb) return ra < rb;
  return a < b;
}

std::pair<QString, QString> CurvesPanel::quantityAndUnit(const QString& scalar) {
  const QString leaf = scalar.section(QLatin1Char('/'), -1);
  if (scalar == QLatin1String("train/total_loss"))
    return {QStringLiteral("total loss"), QStringLiteral("nats")};
  if (scalar.startsWith(QLatin1String("guidance/"))) {
    // guidance/loss and guidance/<pattern> are the guidance objective, not cross-entropy.
    if (leaf == QLatin1String("weight")) return {QStringLiteral("guidance weight α"), {}};
    return {QStringLiteral("guidance loss"), {}};
  }
  if (leaf == QLatin1String("loss")) return {QStringLiteral("loss"), QStringLiteral("nats")};
  if (leaf == QLatin1String("accuracy"))
    return {QStringLiteral("accuracy"), QStringLiteral("fraction")};
  if (leaf == QLatin1String("learning_rate")) return {QStringLiteral("learning rate"), {}};
  if (leaf == QLatin1String("grad_norm")) return {QStringLiteral("gradient norm"), {}};
  if (leaf == QLatin1String("tokens_per_second"))
    return {QStringLiteral("throughput"), QStringLiteral("tokens/s")};
  if (leaf.endsWith(QLatin1String("_kl")))
    return {QStringLiteral("KL divergence"), QStringLiteral("nats")};
  if (leaf == QLatin1String("penalty")) return {QStringLiteral("mask penalty"), {}};
  QString quantity = leaf;
  quantity.replace(QLatin1Char('_'), QLatin1Char(' '));
  return {quantity, {}};
}

CurvesPanel::CurvesPanel(QWidget* parent) : QWidget(parent) {
  m_refresh = new RefreshThrottle(this, [this] { refresh(); });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);
  layout->addLayout(buildToolbar());
  m_page = new PlaceholderStack(QStringLiteral("curvesPlaceholder"), this);
  m_grid = new PlotGrid(kColumns, m_page);
  m_page->setContent(m_grid);
  layout->addWidget(m_page, 1);
  connectControls();
  updatePlaceholder();
}

QHBoxLayout* CurvesPanel::buildToolbar() {
  auto* bar = new QHBoxLayout;
  bar->setSpacing(8);
  addSmoothingControl(bar);
  bar->addSpacing(12);
  addAxisControls(bar);
  bar->addStretch(1);
  return bar;
}

void CurvesPanel::addSmoothingControl(QHBoxLayout* bar) {
  auto* smoothingLabel = new QLabel(QStringLiteral("Smoothing"), this);
  m_smoothing = new QSlider(Qt::Horizontal, this);
  m_smoothing->setObjectName(QStringLiteral("curvesSmoothing"));
  m_smoothing->setRange(0, 99);
  m_smoothing->setValue(60);
  m_smoothing->setMinimumWidth(140);
  m_smoothing->setMaximumWidth(220);
  m_smoothing->setToolTip(QStringLiteral(
      "Exponential moving average of the curves (debiased, as in TensorBoard); the faint band "
      "shows the raw minimum and maximum. 0 = raw values."));
  smoothingLabel->setBuddy(m_smoothing);
  m_smoothingValue = new QLabel(QStringLiteral("0.60"), this);
  m_smoothingValue->setObjectName(QStringLiteral("curvesSmoothingValue"));
  // Room for "0.99" so the row does not jump while dragging.
  m_smoothingValue->setMinimumWidth(m_smoothingValue->fontMetrics().horizontalAdvance("0.00 "));
  bar->addWidget(smoothingLabel);
  bar->addWidget(m_smoothing);
  bar->addWidget(m_smoothingValue);
}

void CurvesPanel::addAxisControls(QHBoxLayout* bar) {
  m_xAxis = new QComboBox(this);
  m_xAxis->setObjectName(QStringLiteral("curvesXAxis"));
  m_xAxis->addItem(QStringLiteral("Step"), static_cast<int>(widgets::CurveXAxis::Step));
  m_xAxis->addItem(QStringLiteral("Wall time"), static_cast<int>(widgets::CurveXAxis::WallTime));
  m_xAxis->addItem(QStringLiteral("Relative time"),
                   static_cast<int>(widgets::CurveXAxis::RelativeTime));
  m_xAxis->setToolTip(QStringLiteral("What the horizontal axis of every plot shows"));
  auto* xLabel = new QLabel(QStringLiteral("X axis"), this);
  xLabel->setBuddy(m_xAxis);
  m_logY = new QCheckBox(QStringLiteral("Log y"), this);
  m_logY->setObjectName(QStringLiteral("curvesLogY"));
  m_fit = new QPushButton(QStringLiteral("Fit"), this);
  m_fit->setObjectName(QStringLiteral("curvesFit"));
  m_fit->setToolTip(QStringLiteral(
      "Show all data in every plot and follow new points again (a double click on a plot "
      "does the same for that plot)"));
  bar->addWidget(xLabel);
  bar->addWidget(m_xAxis);
  bar->addSpacing(12);
  bar->addWidget(m_logY);
  bar->addWidget(m_fit);
}

void CurvesPanel::connectControls() {
  // Smoothing recomputes every curve from its full data: applied on the refresh timer, so
  // dragging the slider costs one recomputation per frame, not one per slider step.
  connect(m_smoothing, &QSlider::valueChanged, this, [this](int v) {
    m_smoothingValue->setText(QString::number(v / 100.0, 'f', 2));
    m_smoothingPending = true;
    m_refresh->request();
  });
  connect(m_xAxis, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
    for (auto& [name, plot] : m_plots) plot->setXAxis(xAxis());
  });
  connect(m_logY, &QCheckBox::toggled, this, [this](bool on) {
    for (auto& [name, plot] : m_plots) plot->setLogY(on);
  });
  connect(m_fit, &QPushButton::clicked, this, [this] {
    for (auto& [name, plot] : m_plots) {
      plot->fitToData();
      plot->requestReplot();
    }
  });
}

CurvesPanel::~CurvesPanel() = default;

double CurvesPanel::smoothing() const {
  return m_smoothing->value() / 100.0;
}

widgets::CurveXAxis CurvesPanel::xAxis() const {
  return static_cast<widgets::CurveXAxis>(m_xAxis->currentData().toInt());
}

bool CurvesPanel::logY() const {
  return m_logY->isChecked();
}

void CurvesPanel::setRuns(const QList<RunSession*>& runs) {
  QList<RunSession*> current;
  for (const Run& r : m_runs) current << r.session.data();
  if (current == runs) return;
  for (const Run& r : m_runs)
    if (r.session) disconnect(r.session, nullptr, this, nullptr);
  m_runs.clear();
  for (RunSession* session : runs) {
    if (session == nullptr) continue;
    m_runs.append(Run{session, {}});
    connect(session, &RunSession::scalarsAppended, this, [this](const QStringList& names) {
      for (const QString& n : names) m_pending.insert(n);
      m_refresh->request();
    });
    // The first batch brings the run's name, which names its series.
    connect(session, &RunSession::metadataChanged, this, [this] {
      m_rebuildPending = true;
      m_refresh->request();
    });
    connect(session, &RunSession::colourChanged, this, [this, session] { applyColours(session); });
    connect(session, &QObject::destroyed, this, [this] {
      m_rebuildPending = true;
      m_refresh->request();
    });
  }
  m_rebuildPending = true;
  // A selection change is a person's action: show it at once when visible.
  if (isVisible()) refresh();
}

void CurvesPanel::setTheme(const widgets::Theme& theme) {
  m_theme = theme;
  for (auto& [name, plot] : m_plots) plot->setTheme(theme);
}

QStringList CurvesPanel::scalarNames() const {
  return m_order;
}

widgets::CurvePlot* CurvesPanel::plotFor(const QString& scalar) const {
  const auto it = m_plots.find(scalar);
  return it == m_plots.end() ? nullptr : it->second;
}

QString CurvesPanel::seriesName(RunSession* run) const {
  for (const Run& r : m_runs)
    if (r.session == run) return r.series;
  return {};
}

void CurvesPanel::refresh() {
  m_refresh->cancel();
  if (!isVisible()) return;
  if (m_rebuildPending) {
    rebuild();
  } else {
    appendPending();
  }
  if (m_smoothingPending) {
    m_smoothingPending = false;
    for (auto& [name, plot] : m_plots) plot->setSmoothing(smoothing());
  }
  updatePlaceholder();
}

void CurvesPanel::rebuild() {
  m_rebuildPending = false;
  m_pending.clear();
  m_runs.erase(
      std::remove_if(m_runs.begin(), m_runs.end(), [](const Run& r) { return r.session.isNull(); }),
      m_runs.end());
  // Series are named after their runs; two selected runs with one name get their folder
  // (and, failing that, their position) added so that both stay in the legend.
  QStringList names;
  for (const Run& r : m_runs) names << r.session->name();
  for (int i = 0; i < m_runs.size(); ++i) {
    QString name = names[i];
    if (names.count(name) > 1)
      name += QStringLiteral(" (%1)").arg(QFileInfo(m_runs[i].session->directory()).fileName());
    for (int j = 0; j < i; ++j)
      if (m_runs[j].series == name) name += QStringLiteral(" #%1").arg(i + 1);
    m_runs[i].series = name;
  }

  QSet<QString> wanted;
  for (const Run& r : m_runs)
    for (const auto& [scalar, points] : r.session->scalars())
      if (!points.steps.empty()) wanted.insert(scalar);
  for (auto it = m_plots.begin(); it != m_plots.end();) {
    if (wanted.contains(it->first)) {
      ++it;
      continue;
    }
    delete it->second;
    it = m_plots.erase(it);
  }
  for (const QString& scalar : wanted)
    if (m_plots.count(scalar) == 0) addPlot(scalar);
  for (auto& [scalar, plot] : m_plots) {
    // Plots that stay are reused (no widget churn when one run is added to the selection).
    plot->clear();
    for (const Run& r : m_runs) fillSeries(plot, scalar, r, /*append=*/false);
    plot->fitToData();
  }
  relayoutGrid();
}

void CurvesPanel::appendPending() {
  if (m_pending.isEmpty()) return;
  const QSet<QString> pending = std::exchange(m_pending, {});
  bool added = false;
  for (const QString& scalar : pending) {
    widgets::CurvePlot* plot = plotFor(scalar);
    if (plot == nullptr) {
      bool hasPoints = false;
      for (const Run& r : m_runs) {
        if (!r.session) continue;
        const auto it = r.session->scalars().find(scalar);
        hasPoints = hasPoints || (it != r.session->scalars().end() && !it->second.steps.empty());
      }
      if (!hasPoints) continue;  // declared, no values yet: no empty plot
      plot = addPlot(scalar);
      added = true;
    }
    // Only the points past what the plot holds: a batch costs its own size, not the run's.
    for (const Run& r : m_runs)
      if (r.session) fillSeries(plot, scalar, r, /*append=*/true);
  }
  if (added) relayoutGrid();
}

widgets::CurvePlot* CurvesPanel::addPlot(const QString& scalar) {
  auto* plot = new widgets::CurvePlot(m_grid->host());
  plot->setObjectName(QStringLiteral("curve:") + scalar);
  plot->setMinimumHeight(kMinPlotHeight);
  plot->setTheme(m_theme);
  plot->setTitle(scalar);
  const auto [quantity, unit] = quantityAndUnit(scalar);
  plot->setYLabel(quantity, unit);
  // Accuracy rises into the top right corner, where the legend would hide it.
  if (scalar.endsWith(QLatin1String("accuracy")))
    plot->setLegendAlignment(Qt::AlignBottom | Qt::AlignRight);
  plot->setSmoothing(smoothing());
  plot->setXAxis(xAxis());
  plot->setLogY(logY());
  m_plots[scalar] = plot;
  return plot;
}

void CurvesPanel::relayoutGrid() {
  m_order.clear();
  for (const auto& [scalar, plot] : m_plots) m_order << scalar;
  std::sort(m_order.begin(), m_order.end(), &CurvesPanel::scalarOrderLess);
  QList<QWidget*> plots;
  for (const QString& scalar : m_order) plots << m_plots[scalar];
  m_grid->setPlots(plots);  // a lone plot takes the full width
}

void CurvesPanel::fillSeries(widgets::CurvePlot* plot, const QString& scalar, const Run& run,
                             bool append) {
  const auto it = run.session->scalars().find(scalar);
  if (it == run.session->scalars().end()) return;
  const ScalarPoints& p = it->second;
  const std::size_t total = std::min(p.steps.size(), p.values.size());
  const bool wall = p.wallTimes.size() >= total;
  const std::size_t held = append ? plot->pointCount(run.series) : 0;
  if (append && held == total) return;
  // Before the series exists, so that it is created in the run's colour (no recolouring
  // pass over the plot per batch).
  if (held == 0) plot->setSeriesColour(run.series, run.session->colour());
  if (!append || held > total) {
    if (total == 0) return;
    plot->setSeries(run.series, {p.steps.begin(), p.steps.begin() + total},
                    {p.values.begin(), p.values.begin() + total},
                    wall ? std::vector<double>(p.wallTimes.begin(), p.wallTimes.begin() + total)
                         : std::vector<double>());
  } else {
    const auto from = static_cast<std::ptrdiff_t>(held);
    const auto to = static_cast<std::ptrdiff_t>(total);
    plot->appendPoints(
        run.series, {p.steps.begin() + from, p.steps.begin() + to},
        {p.values.begin() + from, p.values.begin() + to},
        wall ? std::vector<double>(p.wallTimes.begin() + from, p.wallTimes.begin() + to)
             : std::vector<double>());
  }
}

void CurvesPanel::applyColours(RunSession* session) {
  const QString series = seriesName(session);
  if (series.isEmpty()) return;
  for (auto& [name, plot] : m_plots) plot->setSeriesColour(series, session->colour());
}

void CurvesPanel::updatePlaceholder() {
  if (m_runs.isEmpty())
    m_page->showPlaceholder(QStringLiteral("Select a run in the Runs list to see its curves."));
  else if (m_plots.empty())
    m_page->showPlaceholder(
        QStringLiteral("No values logged yet: the curves appear with the first logged step."));
  else
    m_page->showContent();
}

QString CurvesPanel::exportCurrentFigure(const QString& path,
                                         const widgets::ExportOptions& options) {
  return exportPlotFile(scalarNames().isEmpty() ? nullptr : plotFor(scalarNames().first()), path,
                        options);
}

}  // namespace attnlab::app
