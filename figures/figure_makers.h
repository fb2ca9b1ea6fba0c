#pragma once

// Internal to figures/: one maker per catalog figure. figure_builder.cpp maps the catalog's
// names to these; log_figures.cpp and report_figures.cpp implement them.

#include "figures/figure_builder.h"

namespace attnlab::figures::makers {

// From the run log (log_figures.cpp).
Figure lossCurves(const FigureSpec& spec, const FigureRequest& request);
Figure guidanceFig3(const FigureSpec& spec, const FigureRequest& request);
Figure asaFig5(const FigureSpec& spec, const FigureRequest& request);
Figure sesameFig4(const FigureSpec& spec, const FigureRequest& request);

// From the analysis reports (report_figures.cpp).
Figure entropyViolins(const FigureSpec& spec, const FigureRequest& request);
Figure jsdViolins(const FigureSpec& spec, const FigureRequest& request);
Figure corefHeads(const FigureSpec& spec, const FigureRequest& request);

// The head figures of an analysis report (head_figures.cpp).
Figure clarkFig2(const FigureSpec& spec, const FigureRequest& request);
Figure headJsdMatrix(const FigureSpec& spec, const FigureRequest& request);
Figure headJsdMds(const FigureSpec& spec, const FigureRequest& request);
Figure guidanceConformity(const FigureSpec& spec, const FigureRequest& request);
Figure trainingStatistics(const FigureSpec& spec, const FigureRequest& request);

// The corpus summaries beyond the weights (beyond_figures.cpp).
Figure rolloutSpread(const FigureSpec& spec, const FigureRequest& request);
Figure normWeightCorrelation(const FigureSpec& spec, const FigureRequest& request);
Figure logitLens(const FigureSpec& spec, const FigureRequest& request);

// The heads' analysis (pruning_figures.cpp).
Figure headImportance(const FigureSpec& spec, const FigureRequest& request);
Figure headPruning(const FigureSpec& spec, const FigureRequest& request);

// Two runs' heads compared (head_comparison_figures.cpp).
Figure headsMatching(const FigureSpec& spec, const FigureRequest& request);
Figure layerCka(const FigureSpec& spec, const FigureRequest& request);

// The attention-health series of the run log (health_figures.cpp).
Figure healthSinkRate(const FigureSpec& spec, const FigureRequest& request);
Figure healthMassive(const FigureSpec& spec, const FigureRequest& request);
Figure healthEntropyLogits(const FigureSpec& spec, const FigureRequest& request);

}  // namespace attnlab::figures::makers
