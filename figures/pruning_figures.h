#pragma once

// The heads' analysis (analysis.json's "head_analysis", written by `attnlab-cli analyze --heads`)
// drawn into plots, once for the app's Analysis tab and `attnlab-cli export` (figure names in
// figure_catalog.cpp):
//   head-importance  Michel et al.'s normalised importance per layer x head, and the MLM loss
//                    change when each head alone is masked
//   head-pruning     MLM loss and accuracy against the share of heads masked, in order of
//                    importance and in random orders (the baseline); runs overlaid
// Each throws FigureInputError (naming the report) when it has no "heads", with the command
// that adds it.

#include "figures/beyond_figures.h"

#include <vector>

namespace attnlab::widgets {
class MatrixHeatmap;
class ScatterPlot;
}  // namespace attnlab::widgets

namespace attnlab::figures {

/// Two heatmap panels, rows layers, columns heads, on one -1..1 scale: the normalised
/// importance (0..1), and the loss change with the head masked divided by the largest
/// change (that change, in nats, in the panel's title); without the ablation, the first only.
void drawHeadImportance(widgets::MatrixHeatmap& plot, const LabelledReport& run);

/// Two panels against the share of heads masked (%): MLM loss (nats) and accuracy; per run
/// the importance order bold and the random orders faint.
void drawPruningCurves(widgets::ScatterPlot& plot, const std::vector<LabelledReport>& runs);

}  // namespace attnlab::figures
