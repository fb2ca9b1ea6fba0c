#pragma once

// Internal to figures/: the makers of the figures that compare runs (comparison_figures.cpp),
// mapped to their catalog names in figure_builder.cpp.

#include "figures/figure_builder.h"

namespace attnlab::figures::makers {

/// RealFormer Fig. 4 across runs: entropy violins, layer by layer, one row per run.
Figure realformerFig4(const FigureSpec& spec, const FigureRequest& request);
/// RealFormer Fig. 6 across runs: adjacent-layer JSD violins, one row per run per layer pair.
Figure realformerFig6(const FigureSpec& spec, const FigureRequest& request);
/// Attention guidance Table 8: coreference best head and mean accuracy per run, as bars.
Figure guidanceTable8(const FigureSpec& spec, const FigureRequest& request);

}  // namespace attnlab::figures::makers
