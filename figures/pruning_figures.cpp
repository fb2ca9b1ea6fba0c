// The figures of the heads' analysis (pruning_figures.h) and their catalog makers.
#include "figures/pruning_figures.h"

#include "analysis/runs/analysis_report.h"
#include "figures/figure_catalog.h"
#include "figures/figure_errors.h"
#include "figures/figure_makers.h"
#include "figures/labelled_reports.h"
#include "widgets/plots/matrix_heatmap.h"
#include "widgets/plots/scatter_plot.h"

#include <QColor>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace attnlab::figures {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

const analysis::HeadReport& requireHeads(const LabelledReport& run) {
  if (!run.report->heads)
    throw FigureInputError(run.where,
                           "the report has no heads' analysis; run `attnlab-cli analyze RUN "
                           "--heads` (or tick \"heads\" in the Analysis tab's Options) to add it");
  return *run.report->heads;
}

/// One curve of a run as two series (loss, accuracy) against the share masked, in %.
void addCurve(const analysis::PruningCurve& curve, const QString& name, bool faint,
              widgets::XyPanel& loss, widgets::XyPanel& accuracy) {
  widgets::XySeries l, a;
  l.name = a.name = name;
  l.lines = a.lines = true;
  l.markers = a.markers = !faint;
  l.opacity = a.opacity = faint ? 0.35 : 1.0;
  l.inLegend = a.inLegend = !name.isEmpty();
  // Every random order one neutral grey (readable on the light and the dark theme), so the
  // legend's one entry stands for all of them.
  if (faint) l.colour = a.colour = QColor(128, 128, 128);
  for (const auto& p : curve.points) {
    l.x << 100 * p.share;
    a.x << 100 * p.share;
    l.y << p.score.loss;
    a.y << p.score.accuracy;
  }
  loss.series << l;
  accuracy.series << a;
}

}  // namespace

void drawHeadImportance(widgets::MatrixHeatmap& plot, const LabelledReport& run) {
  const auto& r = requireHeads(run);
  widgets::HeatmapPanel importance, ablation;
  importance.title = QStringLiteral("importance E|dL/dxi_h|, normalised per layer (L2)");
  importance.values = widgets::Matrix(r.layers, r.heads);
  double largest = 0;
  for (const auto& a : r.ablation) largest = std::max(largest, std::abs(a.loss - r.full.loss));
  ablation.title = QStringLiteral("loss change with the head masked / %1 nats (the largest)")
                       .arg(largest, 0, 'g', 3);
  ablation.values = widgets::Matrix(r.layers, r.heads);
  for (int l = 0; l < r.layers; ++l)
    for (int h = 0; h < r.heads; ++h) {
      const auto k = static_cast<std::size_t>(l * r.heads + h);
      importance.values.at(l, h) = static_cast<float>(r.importance[k]);
      if (!r.ablation.empty())
        ablation.values.at(l, h) =
            static_cast<float>(largest > 0 ? (r.ablation[k].loss - r.full.loss) / largest : 0.0);
    }
  plot.setAxisTitles(QStringLiteral("head"), QStringLiteral("layer"));
  plot.setValueLabel(QStringLiteral("importance (left); relative loss change (right)"));
  plot.setValueRange(std::pair{-1.0, 1.0});
  if (r.ablation.empty()) {
    plot.setPanels({importance}, 1);
  } else {
    plot.setPanels({importance, ablation}, 2);
  }
  plot.setTitle(reportsTitle("head-importance", {run}) +
                QStringLiteral(" (full model: %1 nats)").arg(r.full.loss, 0, 'f', 3));
}

void drawPruningCurves(widgets::ScatterPlot& plot, const std::vector<LabelledReport>& runs) {
  for (const auto& run : runs) requireHeads(run);
  widgets::XyPanel loss, accuracy;
  loss.title = QStringLiteral("MLM loss at masked positions");
  loss.yLabel = QStringLiteral("nats");
  accuracy.title = QStringLiteral("MLM accuracy");
  accuracy.yLabel = QStringLiteral("fraction ranked first");
  loss.xLabel = accuracy.xLabel = QStringLiteral("heads masked (% of all)");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = *runs[i].report->heads;
    const QString label = runs.size() > 1 ? q(runs[i].label) + QStringLiteral(": ") : QString();
    QStringList seeds;
    for (const auto& c : r.pruning)
      if (c.order == "random") seeds << QString::number(c.seed);
    bool namedRandom = false;
    for (const auto& c : r.pruning) {
      const bool random = c.order == "random";
      QString name =
          label +
          (random ? QStringLiteral("random orders (seeds %1)").arg(seeds.join(QStringLiteral(", ")))
                  : QStringLiteral("by importance"));
      if (random && namedRandom) name.clear();  // one legend entry for the seeds
      namedRandom = namedRandom || random;
      addCurve(c, name, random, loss, accuracy);
    }
  }
  plot.setPanels({loss, accuracy}, 2);
  plot.setTitle(reportsTitle("head-pruning", runs));
}

}  // namespace attnlab::figures

namespace attnlab::figures::makers {

Figure headImportance(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = load(request);
  auto plot = std::make_unique<widgets::MatrixHeatmap>();
  drawHeadImportance(*plot, r.labelled.front());
  return figureOf(spec, r, std::move(plot), "head_analysis.importance and .ablation");
}

Figure headPruning(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = load(request);
  auto plot = std::make_unique<widgets::ScatterPlot>();
  drawPruningCurves(*plot, r.labelled);
  return figureOf(spec, r, std::move(plot), "head_analysis.pruning");
}

}  // namespace attnlab::figures::makers
