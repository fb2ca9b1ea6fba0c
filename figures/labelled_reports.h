#pragma once

// Internal to figures/: the analysis reports of a figure request, loaded and labelled once
// for every figure drawn from analysis.json (beyond_figures.cpp, pruning_figures.cpp), and
// the figure with its provenance.

#include "analysis/runs/analysis_report.h"
#include "figures/beyond_figures.h"
#include "figures/figure_builder.h"
#include "figures/run_inputs.h"

#include <QString>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace attnlab::widgets {
class PlotWidget;
}

namespace attnlab::figures {

/// "<the catalog title of `figure`>, step S: run A vs run B" for figures of the reports.
QString reportsTitle(const char* figure, const std::vector<LabelledReport>& runs);

}  // namespace attnlab::figures

namespace attnlab::figures::makers {

struct LoadedReports {
  std::vector<std::filesystem::path> runDirs;
  std::vector<ReportLocation> where;
  std::vector<analysis::AnalysisReport> reports;
  std::vector<LabelledReport> labelled;  ///< pointing into `reports`: do not copy
};

/// Each run's analysis.json at the request's step, labelled as the run logs name the runs.
LoadedReports load(const FigureRequest& request);

/// The figure of `plot`, its provenance naming `what` of each report.
Figure figureOf(const FigureSpec& spec, const LoadedReports& r,
                std::unique_ptr<widgets::PlotWidget> plot, const std::string& what);

}  // namespace attnlab::figures::makers
