// The attention-health figures (health_figures.h) and their catalog makers.
#include "figures/health_figures.h"

#include "core/config/config_loader.h"
#include "core/runlog/health_history.h"
#include "figures/figure_catalog.h"
#include "figures/figure_errors.h"
#include "figures/figure_makers.h"
#include "figures/run_inputs.h"
#include "widgets/plots/plot_widget.h"
#include "widgets/plots/scatter_plot.h"

#include <qcustomplot.h>
#include <QString>
#include <QVector>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab::figures {
namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// Markers on every logged point while they stay apart; a long run draws lines only.
constexpr int kMarkersUpTo = 40;
// Up to this many heads each gets its own colour and legend entry (the theme has ten colours,
// so none repeats); beyond, the layer colours the lines and the legend has one entry a layer.
constexpr int kNamedHeadsUpTo = 8;

QVector<double> stepsOf(const core::HealthHistory& h) {
  QVector<double> x;
  for (const auto s : h.steps) x << static_cast<double>(s);
  return x;
}

/// Per-head series `name` as one line per head; colour and legend as drawEntropyLogits says.
widgets::XyPanel headPanel(const core::HealthHistory& h, const std::string& name,
                           const QString& title, const QString& yLabel) {
  widgets::XyPanel panel;
  panel.title = title;
  panel.xLabel = QStringLiteral("step");
  panel.yLabel = yLabel;
  const core::HeadSeries* series = h.head(name);
  if (!series) return panel;
  const int L = static_cast<int>(h.layers), H = static_cast<int>(h.heads);
  const bool named = L * H <= kNamedHeadsUpTo;
  const QVector<double> x = stepsOf(h);
  for (int l = 0; l < L; ++l) {
    for (int hd = 0; hd < H; ++hd) {
      widgets::XySeries line;
      line.name =
          named ? QStringLiteral("L%1H%2").arg(l).arg(hd) : QStringLiteral("layer %1").arg(l);
      line.inLegend = named || hd == 0;
      if (!named) line.colour = widgets::ScatterPlot::layerColour(l, L), line.opacity = 0.75;
      line.lines = true;
      line.markers = x.size() <= kMarkersUpTo;
      line.x = x;
      for (const auto& row : series->rows) line.y << row[static_cast<std::size_t>(l * H + hd)];
      panel.series << line;
    }
  }
  return panel;
}

/// The log axis' range: a little room below the smallest positive value and above the largest
/// (for the labels); nullopt when no value is positive.
std::optional<QCPRange> logRange(const QVector<QVector<double>>& values) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& series : values)
    for (const double v : series)
      if (std::isfinite(v) && v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!(hi > 0)) return std::nullopt;
  return QCPRange(lo / 2.0, hi * 2.0);
}

/// Grouped bars on a logarithmic value axis: categories along x, one bar per series in each
/// group, the first series' value written above its bars (few categories only).
class LogBarPlot : public widgets::PlotWidget {
 public:
  LogBarPlot() {
    // The legend is one row below the bars, clear of them.
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    m_plot->plotLayout()->addElement(2, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(4);
    m_plot->legend->setVisible(true);
  }
  void setBars(const QStringList& categories, const QStringList& names,
               const QVector<QVector<double>>& values, const QString& xLabel,
               const QString& yLabel);

 protected:
  void applyThemeToContent() override {
    for (int s = 0; s < m_bars.size(); ++s) {
      const QColor c = m_theme.seriesColour(s);
      m_bars[s]->setPen(QPen(c.darker(120)));
      m_bars[s]->setBrush(c);
    }
    for (int i = 0; i < m_plot->itemCount(); ++i)
      if (auto* text = qobject_cast<QCPItemText*>(m_plot->item(i)))
        text->setColor(m_theme.foreground);
  }

 private:
  void valueAxis(const QVector<QVector<double>>& values);
  void labelFirstSeries(const QVector<double>& values, double width, double gap, int n);
  QVector<QCPBars*> m_bars;
};

void LogBarPlot::valueAxis(const QVector<QVector<double>>& values) {
  QCPAxis* y = m_plot->yAxis;
  const auto range = logRange(values);
  if (!range) {
    y->setRange(0, 1);
    return;
  }
  // The bars start at 0, which a log axis draws below its bottom edge: each bar's top is its
  // value (QCPBars draws base + value, so the base must stay 0).
  y->setScaleType(QCPAxis::stLogarithmic);
  // Labelled ticks at 1, 2 and 5 times the powers of ten: a range of a decade or two still
  // reads as numbers (powers of ten alone leave one or two labels).
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int e = static_cast<int>(std::floor(std::log10(range->lower)));
       e <= static_cast<int>(std::ceil(std::log10(range->upper))); ++e) {
    for (const double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, e);
      if (v >= range->lower && v <= range->upper) ticker->addTick(v, QString::number(v, 'g', 3));
    }
  }
  ticker->setSubTickCount(0);
  y->setTicker(ticker);
  y->setRange(*range);
}

void LogBarPlot::labelFirstSeries(const QVector<double>& values, double width, double gap, int n) {
  for (int c = 0; c < values.size(); ++c) {
    if (!std::isfinite(values[c]) || values[c] <= 0) continue;
    auto* label = new QCPItemText(m_plot);
    label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    label->position->setType(QCPItemPosition::ptPlotCoords);
    label->position->setCoords(c - (n - 1) / 2.0 * (width + gap), values[c]);
    label->setText(QString::number(values[c], 'g', 3));
    label->setClipToAxisRect(false);
  }
}

void LogBarPlot::setBars(const QStringList& categories, const QStringList& names,
                         const QVector<QVector<double>>& values, const QString& xLabel,
                         const QString& yLabel) {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_bars.clear();
  constexpr double kGap = 0.02;
  auto* group = new QCPBarsGroup(m_plot);
  group->setSpacingType(QCPBarsGroup::stPlotCoords);
  group->setSpacing(kGap);
  const int n = static_cast<int>(values.size());
  const double width = 0.8 / std::max(1, n);
  for (int s = 0; s < n; ++s) {
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setName(names.value(s));
    bars->setWidth(width);
    bars->setBarsGroup(group);
    QVector<double> keys, kept;
    for (int c = 0; c < values[s].size(); ++c)
      if (std::isfinite(values[s][c]) && values[s][c] > 0) keys << c, kept << values[s][c];
    bars->setData(keys, kept, true);
    m_bars << bars;
  }
  // A value per bar would crowd a deep model; the top-1 values alone stay readable.
  if (n > 0 && categories.size() <= 16) labelFirstSeries(values[0], width, kGap, n);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int c = 0; c < categories.size(); ++c) ticker->addTick(c, categories[c]);
  m_plot->xAxis->setTicker(ticker);
  m_plot->xAxis->setSubTicks(false);
  m_plot->xAxis->grid()->setVisible(false);
  m_plot->xAxis->setRange(-0.6, std::max<qsizetype>(0, categories.size() - 1) + 0.6);
  m_plot->xAxis->setLabel(xLabel);
  m_plot->yAxis->setLabel(yLabel);
  valueAxis(values);
  setTheme(m_theme);
}

// The sink threshold the run logged with (log.health_sink_epsilon), when its configuration
// reads back.
std::optional<double> sinkEpsilon(const RunLogInput& run) {
  try {
    return core::parseRunConfig(run.reader.configToml(), "run.h5").log.healthSinkEpsilon;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

void drawSinkRate(widgets::ScatterPlot& plot, const core::HealthHistory& h,
                  std::optional<double> epsilon) {
  widgets::XyPanel panel;
  panel.xLabel = QStringLiteral("step");
  panel.yLabel = epsilon ? QStringLiteral("sink rate (share of heads with class mass > %1)")
                               .arg(*epsilon, 0, 'g', 3)
                         : QStringLiteral("sink rate (share of heads, 0..1)");
  const QVector<double> x = stepsOf(h);
  const auto& classes = core::healthClassNames();
  for (std::size_t c = 0; c < classes.size(); ++c) {
    widgets::XySeries line;
    line.name = q(classes[c]);
    line.lines = true;
    line.markers = x.size() <= kMarkersUpTo;
    line.x = x;
    for (const auto& row : h.sinkRate) line.y << (c < row.size() ? row[c] : NAN);
    panel.series << line;
  }
  plot.setPanels({panel}, 1);
  // A share: the whole 0..1 range, so runs and steps compare by eye.
  if (QCPAxisRect* rect = plot.panelRect(0)) rect->axis(QCPAxis::atLeft)->setRange(-0.03, 1.03);
}

void drawEntropyLogits(widgets::ScatterPlot& plot, const core::HealthHistory& h) {
  QVector<widgets::XyPanel> panels;
  panels << headPanel(h, "entropy_min", QStringLiteral("minimum attention entropy"),
                      QStringLiteral("min row entropy over the probe batch (nats)"));
  panels << headPanel(h, "logit_max", QStringLiteral("largest attention logit S_max"),
                      QStringLiteral("S_max, the largest pre-softmax score"));
  plot.setPanels(panels, 2);
}

std::unique_ptr<widgets::PlotWidget> massiveActivationPlot(const core::HealthHistory& h, int row) {
  const int L = static_cast<int>(h.layers);
  const auto r = static_cast<std::size_t>(row);
  QVector<QVector<double>> values(4);
  QStringList layers, names;
  for (int l = 0; l < L; ++l) {
    layers << QString::number(l);
    for (int k = 0; k < 3; ++k) values[k] << h.massiveValue[r][static_cast<std::size_t>(l * 3 + k)];
    values[3] << h.medianAbs[r][static_cast<std::size_t>(l)];
  }
  for (const char* name : kMassiveBarNames) names << QString::fromLatin1(name);
  auto plot = std::make_unique<LogBarPlot>();
  plot->setBars(layers, names, values, QStringLiteral("layer (its output: the residual stream)"),
                QStringLiteral("|h|, activation magnitude (log scale)"));
  return plot;
}

}  // namespace attnlab::figures

namespace attnlab::figures::makers {
namespace {

struct HealthInput {
  RunLogInput run;
  core::HealthHistory history;
};

// The run's health series, or a FigureInputError that names its log and says how to get them.
HealthInput loadHealth(const FigureRequest& request) {
  RunLogInput run = openRunLog(request.runs.front());
  if (!core::hasHealthSeries(run.reader)) {
    throw FigureInputError(
        run.runDir.string(),
        "the run log " + run.logFile.string() + " of run " + run.runName +
            " has no health/ series (attention health was off: log.health = false, or the log "
            "predates them); train the run with log.health = true (the default) to log them");
  }
  core::HealthHistory history = core::readHealthHistory(run.reader);
  if (history.empty()) {
    throw FigureInputError(run.runDir.string(),
                           "the run log " + run.logFile.string() +
                               " declares the health/ series but holds no row of them yet (the "
                               "first is written at step 0)");
  }
  return {std::move(run), std::move(history)};
}

Figure healthFigure(const FigureSpec& spec, const HealthInput& in,
                    std::unique_ptr<widgets::PlotWidget> plot, const std::string& steps,
                    const std::string& series) {
  Figure figure;
  figure.spec = &spec;
  figure.plot = std::move(plot);
  figure.provenance.push_back({in.run.runDir.string(), in.run.runName, steps,
                               in.run.logFile.filename().string() + ": " + series});
  return figure;
}

std::string shapeText(const core::HealthHistory& h) {
  return std::to_string(h.layers) + " layers x " + std::to_string(h.heads) + " heads";
}

// The row health-massive draws: the last, or the latest at or before `step`.
int massiveRow(const HealthInput& in, std::optional<std::int64_t> step) {
  const auto& h = in.history;
  if (!step) return static_cast<int>(h.steps.size()) - 1;
  const int row = h.rowAtOrBefore(*step);
  if (h.steps[static_cast<std::size_t>(row)] > *step) {
    throw FigureInputError(in.run.runDir.string(),
                           "no health row at or before step " + std::to_string(*step) + " in " +
                               in.run.logFile.string() +
                               " (health rows: " + stepRangeText(h.steps) + ")");
  }
  return row;
}

}  // namespace

Figure healthSinkRate(const FigureSpec& spec, const FigureRequest& request) {
  const HealthInput in = loadHealth(request);
  auto plot = std::make_unique<widgets::ScatterPlot>();
  drawSinkRate(*plot, in.history, sinkEpsilon(in.run));
  plot->setTitle(q(spec.title) + QStringLiteral(": ") + q(in.run.runName));
  return healthFigure(
      spec, in, std::move(plot), stepRangeText(in.history.steps),
      "series health/sink_rate [" + std::to_string(in.history.classes) + " token classes]");
}

Figure healthMassive(const FigureSpec& spec, const FigureRequest& request) {
  const HealthInput in = loadHealth(request);
  const int row = massiveRow(in, request.step);
  const std::int64_t step = in.history.steps[static_cast<std::size_t>(row)];
  auto plot = massiveActivationPlot(in.history, row);
  plot->setTitle(q(spec.title) + QStringLiteral(", step %1: ").arg(step) + q(in.run.runName));
  return healthFigure(
      spec, in, std::move(plot),
      "step " + std::to_string(step) + " (health rows: " + stepRangeText(in.history.steps) + ")",
      "series health/massive_value [" + std::to_string(in.history.layers) +
          " layers, 3] and health/median_abs at step " + std::to_string(step));
}

Figure healthEntropyLogits(const FigureSpec& spec, const FigureRequest& request) {
  const HealthInput in = loadHealth(request);
  auto plot = std::make_unique<widgets::ScatterPlot>();
  drawEntropyLogits(*plot, in.history);
  plot->setTitle(q(spec.title) + QStringLiteral(": ") + q(in.run.runName));
  return healthFigure(
      spec, in, std::move(plot), stepRangeText(in.history.steps),
      "series health/entropy_min and health/logit_max [" + shapeText(in.history) + "]");
}

}  // namespace attnlab::figures::makers
