// The figures of the corpus summaries beyond the weights (beyond_figures.h) and their catalog
// makers.
#include "figures/beyond_figures.h"

#include "analysis/report/beyond_weights_json.h"
#include "analysis/report/report_readers.h"
#include "analysis/runs/analysis_report.h"
#include "figures/figure_catalog.h"
#include "figures/figure_errors.h"
#include "figures/figure_makers.h"
#include "figures/labelled_reports.h"
#include "figures/run_inputs.h"
#include "widgets/plots/matrix_heatmap.h"
#include "widgets/plots/scatter_plot.h"

#include <QString>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <functional>

namespace attnlab::figures {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

const char* kAnalyze = "run `attnlab-cli analyze RUN` (without --no-";

template <typename Summary>
const Summary& require(const std::optional<Summary>& summary, const LabelledReport& run,
                       const char* what, const char* option) {
  if (!summary)
    throw FigureInputError(run.where, std::string("the report has no ") + what + " summary (" +
                                          "analysed with --no-" + option + " or before it " +
                                          "existed); " + kAnalyze + option + ") to add it");
  return *summary;
}

/// One panel per quantity, x = `xs`, one line per run from `value(run, i)`.
using PanelValue = std::function<double(const LabelledReport&, int)>;
widgets::XyPanel linePanel(const QString& title, const QString& yLabel, const QString& xLabel,
                           const std::vector<LabelledReport>& runs,
                           const std::function<int(const LabelledReport&)>& count,
                           const PanelValue& value) {
  widgets::XyPanel panel;
  panel.title = title;
  panel.xLabel = xLabel;
  panel.yLabel = yLabel;
  panel.integerX = true;
  for (const auto& run : runs) {
    widgets::XySeries series;
    series.name = q(run.label);  // the legend also keeps the panels' grid at full width
    series.lines = true;
    for (int i = 0; i < count(run); ++i) {
      series.x << i;
      series.y << value(run, i);
    }
    panel.series << series;
  }
  return panel;
}

}  // namespace

void drawRolloutSpread(widgets::ScatterPlot& plot, const std::vector<LabelledReport>& runs) {
  for (const auto& run : runs) require(run.report->beyond.rollout, run, "rollout", "rollout");
  const auto layers = [](const LabelledReport& r) { return r.report->beyond.rollout->layers; };
  const auto member = [](std::vector<double> analysis::RolloutSummary::*field) {
    return [field](const LabelledReport& r, int l) {
      return ((*r.report->beyond.rollout).*field)[static_cast<std::size_t>(l)];
    };
  };
  const QString layer = QStringLiteral("layer");
  QVector<widgets::XyPanel> panels;
  panels << linePanel(QStringLiteral("spread from the diagonal"),
                      QStringLiteral("mean sum_j R_ij |i - j| (tokens)"), layer, runs, layers,
                      member(&analysis::RolloutSummary::spread));
  panels << linePanel(QStringLiteral("diagonal mass"), QStringLiteral("mean R_ii (0..1)"), layer,
                      runs, layers, member(&analysis::RolloutSummary::diagonal));
  panels << linePanel(QStringLiteral("row entropy"), QStringLiteral("mean entropy of R_i (nats)"),
                      layer, runs, layers, member(&analysis::RolloutSummary::entropy));
  plot.setPanels(panels, 3);
  plot.setTitle(reportsTitle("rollout-spread", runs));
}

void drawNormCorrelation(widgets::MatrixHeatmap& plot, const LabelledReport& run) {
  const auto& n = require(run.report->beyond.norms, run, "weights-against-norms", "norms");
  double largest = 0;
  for (const double v : n.meanValueNorm)
    if (std::isfinite(v)) largest = std::max(largest, v);
  widgets::HeatmapPanel r, f;
  r.title = QStringLiteral("Pearson r of alpha_ij,h and ||alpha_ij,h f_h(x_j)||; layer r:");
  f.title = QStringLiteral("mean ||f_h(x_j)|| / %1 (the largest)").arg(largest, 0, 'g', 4);
  r.values = widgets::Matrix(n.layers, n.heads);
  f.values = widgets::Matrix(n.layers, n.heads);
  for (int l = 0; l < n.layers; ++l) {
    r.title += QStringLiteral(" L%1 %2").arg(l).arg(n.layerCorrelation[l], 0, 'f', 2);
    for (int h = 0; h < n.heads; ++h) {
      const auto k = static_cast<std::size_t>(l * n.heads + h);
      r.values.at(l, h) = static_cast<float>(n.headCorrelation[k]);
      f.values.at(l, h) = static_cast<float>(largest > 0 ? n.meanValueNorm[k] / largest : NAN);
    }
  }
  plot.setAxisTitles(QStringLiteral("head"), QStringLiteral("layer"));
  plot.setValueLabel(QStringLiteral("Pearson r (left); mean norm of f, relative (right)"));
  plot.setValueRange(std::pair{-1.0, 1.0});
  plot.setPanels({r, f}, 2);
  plot.setTitle(reportsTitle("norm-weight-correlation", {run}));
}

void drawLogitLens(widgets::ScatterPlot& plot, const std::vector<LabelledReport>& runs) {
  for (const auto& run : runs) {
    if (run.report->beyond.lensSkippedNoMlmHead)
      throw FigureInputError(run.where,
                             "no logit lens: the model has no MLM head (a BertModel or "
                             "RobertaModel saved without it), so there is nothing to read the "
                             "layers through");
    const auto& lens = require(run.report->beyond.lens, run, "logit lens", "lens");
    if (lens.positions == 0)
      throw FigureInputError(run.where, "the logit lens scored no masked position");
  }
  const auto rows = [](const LabelledReport& r) {
    return static_cast<int>(r.report->beyond.lens->rows.size());
  };
  const auto member = [](double analysis::LensSummaryRow::*field) {
    return [field](const LabelledReport& r, int i) {
      return r.report->beyond.lens->rows[static_cast<std::size_t>(i)].*field;
    };
  };
  const auto& first = *runs.front().report->beyond.lens;
  const QString x = first.outputRow ? QStringLiteral("layer (last: SesameBERT's output)")
                                    : QStringLiteral("layer");
  QVector<widgets::XyPanel> panels;
  panels << linePanel(QStringLiteral("accuracy"), QStringLiteral("fraction ranked first"), x, runs,
                      rows, member(&analysis::LensSummaryRow::accuracy));
  panels << linePanel(QStringLiteral("mean rank of the target"),
                      QStringLiteral("tokens scored above it"), x, runs, rows,
                      member(&analysis::LensSummaryRow::meanRank));
  panels << linePanel(QStringLiteral("KL(output || layer)"), QStringLiteral("nats"), x, runs, rows,
                      member(&analysis::LensSummaryRow::meanKlToOutput));
  QString half;
  if (runs.size() == 1 && first.halfAccuracyRow >= 0) {
    half = QStringLiteral(" (line: half the output's accuracy, ") +
           q(analysis::lensRowName(first, first.halfAccuracyRow)) + ")";
    for (auto& p : panels) p.marker = first.halfAccuracyRow;
  }
  plot.setPanels(panels, 3);
  plot.setTitle(reportsTitle("logit-lens", runs) + half);
}

}  // namespace attnlab::figures

namespace attnlab::figures::makers {

Figure rolloutSpread(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = load(request);
  auto plot = std::make_unique<widgets::ScatterPlot>();
  drawRolloutSpread(*plot, r.labelled);
  return figureOf(spec, r, std::move(plot), "beyond_weights.rollout");
}

Figure normWeightCorrelation(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = load(request);
  auto plot = std::make_unique<widgets::MatrixHeatmap>();
  drawNormCorrelation(*plot, r.labelled.front());
  return figureOf(spec, r, std::move(plot), "beyond_weights.norms");
}

Figure logitLens(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = load(request);
  auto plot = std::make_unique<widgets::ScatterPlot>();
  drawLogitLens(*plot, r.labelled);
  return figureOf(spec, r, std::move(plot), "beyond_weights.lens");
}

}  // namespace attnlab::figures::makers
