#pragma once

// The violin figures of an analysis report drawn into a plot: the one drawing of RealFormer's
// Fig. 4 (entropy) and Fig. 6 (adjacent-layer JSD) that the `entropy-violins` and
// `jsd-violins` figures (figure_builder.h, attnlab-cli export) and the app's Analysis tab
// share, titles included. The caller loads the report (the app does it off the GUI thread).

#include <string>

namespace attnlab::analysis {
struct AnalysisReport;
struct CorefProbeReport;
}  // namespace attnlab::analysis
namespace attnlab::widgets {
class ProbeMatrixPlot;
class ViolinGrid;
}  // namespace attnlab::widgets

namespace attnlab::figures {

/// Per-head attention entropy violins of `report`, titled "<figure title>, step S: <run>".
/// Throws FigureInputError (naming `where`) when the report holds no per-head entropy.
void drawEntropyViolins(widgets::ViolinGrid& plot, const analysis::AnalysisReport& report,
                        const std::string& runName, const std::string& where);
/// JSD between the same head in adjacent layers; throws FigureInputError for a one-layer
/// model (nothing to draw).
void drawJsdViolins(widgets::ViolinGrid& plot, const analysis::AnalysisReport& report,
                    const std::string& runName, const std::string& where);

/// The coreference probe's per-head accuracy with the best head framed and the baselines
/// (the `coref-heads` figure); throws FigureInputError when the probe scored no mentions.
void drawCorefHeads(widgets::ProbeMatrixPlot& plot, const analysis::CorefProbeReport& report,
                    const std::string& runName, const std::string& where);

}  // namespace attnlab::figures
