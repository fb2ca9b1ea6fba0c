#pragma once

// The maps each Inspect view reads from a frame: one T x T map per (layer, head) for the
// weights, the scores and the head norms; one per layer for the rollout and the layer norms
// (the grid then has one column). Reads the frame's arrays in place; no LibTorch.

#include "app/gui/inspection_frame.h"

#include <QString>

#include <vector>

namespace attnlab::app {

/// The views in the order of the Inspect tab's selector.
constexpr InspectView kInspectViewOrder[kInspectViews] = {
    InspectView::Weights, InspectView::Scores, InspectView::Rollout, InspectView::HeadNorms,
    InspectView::LayerNorms};

/// The selector's name of `view` ("weights", "rollout", ...).
QString inspectViewName(InspectView view);
/// What a cell of `view` holds, for the colour scale.
QString inspectViewValueLabel(InspectView view, bool residualScores);
/// True for the views with one map per layer (rollout, layer norms).
bool isPerLayerView(InspectView view);
/// Maps per layer in the grid: the heads, or 1 for a per-layer view.
int viewColumns(const InspectionFrame& frame, InspectView view);
/// The first cell of the T x T map of (layer, head) (head ignored for a per-layer view);
/// nullptr when the frame lacks it.
const float* viewData(const InspectionFrame& frame, InspectView view, int layer, int head);
/// Every map of `view`, layer-major (layers x viewColumns); empty when the frame lacks them.
std::vector<const float*> viewPointers(const InspectionFrame& frame, InspectView view);
/// The T x T map of (layer, head) as a matrix (empty when the frame lacks it).
widgets::Matrix viewMatrix(const InspectionFrame& frame, InspectView view, int layer, int head);
/// ||f_h(x_key)|| of (layer, head); NaN when the frame has no norms.
double valueNorm(const InspectionFrame& frame, int layer, int head, int key);
/// The hover read-out of cell (query, key) of `view`'s map of (layer, head): the tokens and
/// the value; for the norms also the weight and ||f_h(x_key)|| (the heads' mean weight for the
/// layer norms), so a large weight meeting a small vector shows.
QString hoverText(const InspectionFrame& frame, InspectView view, int layer, int head, int query,
                  int key, double value);

}  // namespace attnlab::app
