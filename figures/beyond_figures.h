#pragma once

// The corpus summaries beyond the weights (analysis.json's beyond_weights, written by
// `attnlab-cli analyze`) drawn into plots, once for the app's Analysis tab, the Compare tab
// and `attnlab-cli export` (figure names in figure_catalog.cpp):
//   rollout-spread           rollout's spread, diagonal mass and entropy per layer; runs overlaid
//   norm-weight-correlation  Pearson r of weights and norms per layer x head, with mean ||f||
//   logit-lens               lens accuracy, mean rank and KL to the output per layer; runs
//                            overlaid, the half-accuracy layer marked
// Each throws FigureInputError (naming `where`) when a report lacks the summary, with the
// command that adds it.

#include <string>
#include <vector>

namespace attnlab::analysis {
struct AnalysisReport;
}
namespace attnlab::widgets {
class MatrixHeatmap;
class ScatterPlot;
}  // namespace attnlab::widgets

namespace attnlab::figures {

/// One run's report as a figure draws it: the report, its label (legend) and its file.
struct LabelledReport {
  const analysis::AnalysisReport* report = nullptr;
  std::string label;
  std::string where;
};

/// Three panels against the layer: spread sum_j R_ij |i - j| (tokens), diagonal mass R_ii
/// and row entropy (nats), one line per run.
void drawRolloutSpread(widgets::ScatterPlot& plot, const std::vector<LabelledReport>& runs);

/// Two heatmap panels, rows layers, columns heads: Pearson r of weight and norm (with the
/// layer-level r in the panel's title) and the mean ||f_h(x_j)|| divided by its largest value
/// (that value in the panel's title), on one -1..1 scale.
void drawNormCorrelation(widgets::MatrixHeatmap& plot, const LabelledReport& run);

/// Three panels against the lens row (the layers, then SesameBERT's output row): accuracy,
/// mean rank (tokens) and KL(output || row) (nats), one line per run; with one run the
/// half-accuracy row is marked by a vertical line.
void drawLogitLens(widgets::ScatterPlot& plot, const std::vector<LabelledReport>& runs);

}  // namespace attnlab::figures
