#include "app/gui/panels/health/health_plots.h"

#include "widgets/plots/head_value_map.h"
#include "widgets/plots/step_trend_plot.h"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <utility>

namespace attnlab::app {

namespace {

constexpr int kMinPlotHeight = 200;

QString hoverHint() {
  return QStringLiteral("Hover over a head to read its value; click it to inspect it.");
}

QString className(int c) {
  const auto& names = core::healthClassNames();
  return c >= 0 && c < static_cast<int>(names.size()) ? QString::fromStdString(names[c])
                                                      : QStringLiteral("?");
}

/// Head `head` of `heads` in its layer's colour, darker to lighter.
QColor headColour(const widgets::Theme& theme, int layer, int head, int heads) {
  const QColor base = theme.seriesColour(layer);
  const double t = heads > 1 ? double(head) / (heads - 1) : 0.5;
  return QColor::fromHsvF(base.hsvHueF(), base.hsvSaturationF() * (1.0 - 0.35 * t),
                          std::clamp(0.55 + 0.45 * t, 0.0, 1.0));
}

QString markerLabel(HealthAlarm::Kind kind) {
  switch (kind) {
    case HealthAlarm::Kind::EntropyCollapse:
      return QStringLiteral("collapse");
    case HealthAlarm::Kind::MassiveActivation:
      return QStringLiteral("massive");
    case HealthAlarm::Kind::SinkRateJump:
      return QStringLiteral("sink");
  }
  return {};
}

QColor markerColour(const widgets::Theme& theme, HealthAlarm::Kind kind) {
  if (kind == HealthAlarm::Kind::MassiveActivation) return theme.seriesColour(4);
  if (kind == HealthAlarm::Kind::SinkRateJump) return theme.seriesColour(1);
  return theme.classHigh;
}

/// One marker per kind and step among `alarms` (of `kinds`; all when empty).
QVector<widgets::TrendMarker> markersOf(const widgets::Theme& theme,
                                        const std::vector<HealthAlarm>* alarms,
                                        const std::set<HealthAlarm::Kind>& kinds = {}) {
  QVector<widgets::TrendMarker> out;
  std::set<std::pair<int, std::int64_t>> seen;
  for (const HealthAlarm& a : alarms ? *alarms : std::vector<HealthAlarm>{}) {
    if (!kinds.empty() && kinds.count(a.kind) == 0) continue;
    if (!seen.insert({static_cast<int>(a.kind), a.step}).second) continue;
    out.push_back({double(a.step), markerLabel(a.kind), markerColour(theme, a.kind)});
  }
  return out;
}

double stepOf(const HealthView& v) {
  const auto& steps = v.history->steps;
  return v.row >= 0 && v.row < static_cast<int>(steps.size()) ? double(steps[v.row]) : std::nan("");
}

}  // namespace

HealthPlots::HealthPlots(QWidget* parent) : QWidget(parent) {
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(4);
  auto* left = new QWidget(this);
  auto* leftColumn = new QVBoxLayout(left);
  leftColumn->setContentsMargins(0, 0, 0, 0);
  leftColumn->setSpacing(2);
  m_heatmap = new widgets::HeadValueMap(left);
  m_heatmap->setObjectName(QStringLiteral("healthHeatmap"));
  m_heatmap->setMinimumHeight(kMinPlotHeight);
  m_hover = new QLabel(hoverHint(), left);
  m_hover->setObjectName(QStringLiteral("healthHover"));
  m_hover->setContentsMargins(6, 0, 6, 0);
  m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
  leftColumn->addWidget(m_heatmap, 1);
  leftColumn->addWidget(m_hover);
  const auto addTrend = [this](const QString& name) {
    auto* plot = new widgets::StepTrendPlot(this);
    plot->setObjectName(name);
    plot->setMinimumHeight(kMinPlotHeight);
    return plot;
  };
  m_trend = addTrend(QStringLiteral("healthTrend"));
  m_sinkRates = addTrend(QStringLiteral("healthSinkRates"));
  m_massive = addTrend(QStringLiteral("healthMassive"));
  m_rank = addTrend(QStringLiteral("healthRank"));
  // Two rows: the heatmap and its trend (halves); sinks, massive activations and rank
  // collapse (thirds).
  grid->addWidget(left, 0, 0, 1, 3);
  grid->addWidget(m_trend, 0, 3, 1, 3);
  grid->addWidget(m_sinkRates, 1, 0, 1, 2);
  grid->addWidget(m_massive, 1, 2, 1, 2);
  grid->addWidget(m_rank, 1, 4, 1, 2);
  for (int c = 0; c < 6; ++c) grid->setColumnStretch(c, 1);
  grid->setRowStretch(0, 5);
  grid->setRowStretch(1, 4);
}

void HealthPlots::setTheme(const widgets::Theme& theme) {
  m_theme = theme;
  m_heatmap->setTheme(theme);
  for (auto* plot : {m_trend, m_sinkRates, m_massive, m_rank}) plot->setTheme(theme);
}

void HealthPlots::drawAll(const HealthView& v) {
  drawTrend(v);
  drawSinkRates(v);
  drawMassive(v);
  drawRank(v);
  drawStep(v);
}

void HealthPlots::drawStep(const HealthView& v) {
  const core::HealthHistory& h = *v.history;
  const HealthQuantityInfo& info = healthQuantityInfo(v.quantity);
  m_heatmap->setValueLabel(healthValueLabel(v.quantity, v.sinkClass));
  m_heatmap->setValueRange(healthValueRange(h, v.quantity, v.sinkClass));
  m_heatmap->setValues(headValuesAt(h, v.quantity, v.sinkClass, v.row));
  const double step = stepOf(v);
  QString title = info.axisName;
  title[0] = title[0].toUpper();
  if (v.quantity == HealthQuantity::SinkMass)
    title += QStringLiteral(" on ") + className(v.sinkClass);
  m_heatmap->setTitle(QStringLiteral("%1 per head at step %2").arg(title).arg(step));
  // Framed: the heads whose entropy collapsed up to this step.
  QVector<QPoint> marked;
  for (const HealthAlarm& a : v.alarms ? *v.alarms : std::vector<HealthAlarm>{})
    if (a.kind == HealthAlarm::Kind::EntropyCollapse && a.row <= v.row)
      marked << QPoint(a.layer, a.head);
  m_heatmap->setMarkedHeads(marked);
  for (auto* plot : {m_trend, m_sinkRates, m_massive, m_rank}) plot->setCursorStep(step);
}

void HealthPlots::drawTrend(const HealthView& v) {
  const core::HealthHistory& h = *v.history;
  const HealthQuantityInfo& info = healthQuantityInfo(v.quantity);
  QVector<widgets::TrendLine> lines;
  for (int l = 0; l < h.layers; ++l) {
    std::vector<double> mean(h.steps.size(), 0.0);
    for (int head = 0; head < h.heads; ++head) {
      std::vector<double> values = headTrend(h, v.quantity, v.sinkClass, l, head);
      for (std::size_t r = 0; r < values.size(); ++r) mean[r] += values[r] / double(h.heads);
      if (!v.perLayer)
        lines.push_back({QStringLiteral("L%1 H%2").arg(l).arg(head), std::move(values),
                         headColour(m_theme, l, head, static_cast<int>(h.heads))});
    }
    if (v.perLayer)
      lines.push_back({QStringLiteral("layer %1").arg(l), std::move(mean), m_theme.seriesColour(l),
                       /*bold=*/true});
  }
  m_trend->setYLabel(info.axisName + (v.quantity == HealthQuantity::SinkMass
                                          ? QStringLiteral(" on ") + className(v.sinkClass)
                                          : QString()),
                     info.unit);
  m_trend->setTitle(v.perLayer ? QStringLiteral("Per layer (mean over heads) over training")
                               : QStringLiteral("Per head over training (colour: layer)"));
  m_trend->setYRange(info.fraction ? std::optional(std::pair(0.0, 1.0)) : std::nullopt);
  m_trend->setLines(healthSteps(h), lines);
  m_trend->setMarkers(markersOf(m_theme, v.alarms));
}

void HealthPlots::drawSinkRates(const HealthView& v) {
  const core::HealthHistory& h = *v.history;
  QVector<widgets::TrendLine> lines;
  for (int c = 0; c < h.classes; ++c)
    lines.push_back({className(c), layerTrend(h.sinkRate, c), m_theme.seriesColour(c)});
  m_sinkRates->setTitle(QStringLiteral("Sink rate per token class"));
  m_sinkRates->setYLabel(QStringLiteral("share of heads"));
  m_sinkRates->setYRange(std::pair(0.0, 1.0));
  m_sinkRates->setLines(healthSteps(h), lines);
  m_sinkRates->setMarkers(markersOf(m_theme, v.alarms, {HealthAlarm::Kind::SinkRateJump}));
}

void HealthPlots::drawMassive(const HealthView& v) {
  const core::HealthHistory& h = *v.history;
  QVector<widgets::TrendLine> lines;
  for (int l = 0; l < h.layers; ++l)
    lines.push_back({QStringLiteral("layer %1").arg(l), layerTrend(h.massiveRatio, l),
                     m_theme.seriesColour(l)});
  m_massive->setTitle(QStringLiteral("Massive activations per layer"));
  m_massive->setYLabel(QStringLiteral("top |h| / median |h|"));
  m_massive->setLogY(true);
  m_massive->setReferenceLine(v.thresholds.massiveRatio,
                              QStringLiteral("alarm > %1").arg(v.thresholds.massiveRatio));
  m_massive->setLines(healthSteps(h), lines);
  m_massive->setMarkers(markersOf(m_theme, v.alarms, {HealthAlarm::Kind::MassiveActivation}));
}

void HealthPlots::drawRank(const HealthView& v) {
  const core::HealthHistory& h = *v.history;
  QVector<widgets::TrendLine> lines;
  for (int l = 0; l < h.layers; ++l)
    lines.push_back({QStringLiteral("layer %1").arg(l), layerTrend(h.rankResidual, l),
                     m_theme.seriesColour(l)});
  m_rank->setTitle(QStringLiteral("Rank collapse per layer"));
  // Dong et al.'s residual ||X - 1 mean(X)^T|| / ||X||: 0 when every token is the mean.
  m_rank->setYLabel(QStringLiteral("residual ratio"));
  m_rank->setYRange(std::pair(0.0, 1.0));
  m_rank->setLines(healthSteps(h), lines);
}

void HealthPlots::showHover(const HealthView& v, int layer, int head) {
  const core::HealthHistory& h = *v.history;
  if (layer < 0 || head < 0 || v.row < 0 || v.row >= static_cast<int>(h.steps.size())) {
    m_hover->setText(hoverHint());
    return;
  }
  const widgets::Matrix values = headValuesAt(h, v.quantity, v.sinkClass, v.row);
  QString text = QStringLiteral("layer %1, head %2 · %3 = %4")
                     .arg(layer)
                     .arg(head)
                     .arg(healthValueLabel(v.quantity, v.sinkClass))
                     .arg(QString::number(values.at(layer, head), 'g', 4));
  const core::HeadSeries* top = h.head("top_key_mass");
  const core::HeadSeries* topClass = h.head("top_key_class");
  const auto i = static_cast<std::size_t>(layer * h.heads + head);
  if (top && topClass && i < top->rows[v.row].size())
    text += QStringLiteral(" · top key: %1 (mass %2)")
                .arg(className(static_cast<int>(topClass->rows[v.row][i])))
                .arg(QString::number(top->rows[v.row][i], 'g', 3));
  m_hover->setText(text + QStringLiteral(" · step %1").arg(h.steps[v.row]));
}

}  // namespace attnlab::app
