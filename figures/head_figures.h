#pragma once

// The head figures of an analysis report drawn into plots, defined once for the app's
// Analysis tab and `attnlab-cli export` (figure names in figure_catalog.cpp):
//   clark-fig2           Clark et al. 2019 Fig. 2: attention to special tokens per head, by layer
//   head-jsd-matrix      the all-pairs head JSD (Clark et al. Sec. 6's distances)
//   head-jsd-mds         Clark et al. 2019 Fig. 6's 2-D embedding of the heads (classical MDS)
//   guidance-conformity  distance of each head to the attention-guidance patterns
//   training-statistics  per-head median entropy and JSD over training steps
// Each throws FigureInputError (naming `where`) when the report lacks what it draws, with
// the command that makes it. The caller loads the report (the app off the GUI thread).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::analysis {
struct AnalysisReport;
struct HeadEmbedding;
struct TrainingStatisticsPoint;
}  // namespace attnlab::analysis
namespace attnlab::widgets {
class MatrixHeatmap;
class ScatterPlot;
}  // namespace attnlab::widgets

namespace attnlab::figures {

/// Clark et al.'s six behaviours in HeadSummary order, as panel titles.
const std::vector<std::string>& clarkBehaviours();

/// One panel per behaviour (3 x 2), x = layer, y = each head's mean attention, a series per
/// layer (viridis, the legend names the layers).
void drawClarkFig2(widgets::ScatterPlot& plot, const analysis::AnalysisReport& report,
                   const std::string& runName, const std::string& where);

/// The (L*H) x (L*H) mean JSD between heads, rows and columns "L<l> h<h>".
void drawHeadJsdMatrix(widgets::MatrixHeatmap& plot, const analysis::AnalysisReport& report,
                       const std::string& runName, const std::string& where);

/// Classical MDS (analysis/attention/head_embedding.h) of the pairwise JSD: one point per
/// head, a series per layer. Returns the embedding drawn.
analysis::HeadEmbedding drawHeadJsdMds(widgets::ScatterPlot& plot,
                                       const analysis::AnalysisReport& report,
                                       const std::string& runName, const std::string& where);

/// Layer x head total-variation distance to each guidance pattern (kGuidancePatterns), on
/// one 0..1 colour scale; `pattern` in [0, 5) draws that pattern alone, nullopt all five.
/// NaN (the pattern never applied) is drawn "n/a".
void drawGuidanceConformity(widgets::MatrixHeatmap& plot, const analysis::AnalysisReport& report,
                            const std::string& runName, const std::string& where,
                            std::optional<int> pattern = std::nullopt);

/// The sources of the report's over-training points that it holds: "snapshot" (the log's
/// attention snapshots, a probe batch) and/or "checkpoint" (the evaluation set under each
/// checkpoint, --over-checkpoints). The two are different data and never mixed in a line.
std::vector<std::string> trainingSources(const analysis::AnalysisReport& report);
/// The source the training-statistics figure draws: the one with more steps (ties: the
/// checkpoints, the larger evaluation set); empty without points.
std::string defaultTrainingSource(const analysis::AnalysisReport& report);
/// The over-training points of `source` (default: defaultTrainingSource()), by step.
std::vector<const analysis::TrainingStatisticsPoint*> trainingPoints(
    const analysis::AnalysisReport& report, const std::string& source = {});

/// Median entropy (left) and median JSD to the layer below (right) of every head against
/// step: heads faint, each layer's mean over its heads bold, coloured by layer; `marker`
/// draws a vertical line at a step; `source` as trainingPoints().
void drawTrainingStatistics(widgets::ScatterPlot& plot, const analysis::AnalysisReport& report,
                            const std::string& runName, const std::string& where,
                            std::optional<std::int64_t> marker = std::nullopt,
                            const std::string& source = {});

}  // namespace attnlab::figures
