#pragma once

// Two runs' heads compared (heads_comparison.json, written by `attnlab-cli compare A B
// --heads` or the Compare tab's Compare heads) drawn into plots, for the Compare tab and
// `attnlab-cli export` (figure names in figure_catalog.cpp):
//   heads-matching  per layer, the JSD between every head of A (rows) and of B (columns),
//                   with the matching and the matched and same-index means in the titles
//   layer-cka       linear CKA between every layer of A (rows) and of B (columns)
// The makers find the report under <run A>/analysis/compare-step-SA-vs-<B>-step-SB/ (the
// highest steps when several, or SA = --step); FigureInputError with the command otherwise.

#include "analysis/runs/head_comparison_report.h"

#include <string>

namespace attnlab::widgets {
class MatrixHeatmap;
}

namespace attnlab::figures {

/// One heatmap panel per layer (rows: heads of A, columns: heads of B; JSD in bits, 0..1).
void drawHeadMatching(widgets::MatrixHeatmap& plot, const analysis::HeadComparison& report,
                      const std::string& labelA, const std::string& labelB);

/// One panel: linear CKA, rows A's embeddings and layers, columns B's, 0..1.
void drawLayerCka(widgets::MatrixHeatmap& plot, const analysis::HeadComparison& report,
                  const std::string& labelA, const std::string& labelB);

}  // namespace attnlab::figures
