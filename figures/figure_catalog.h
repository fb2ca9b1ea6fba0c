#pragma once

// The papers' figures AttnLab draws from runs, defined once: which data, which plot, which
// labels. The app and `attnlab-cli export` both take their figures from this table and
// build them with buildFigure() (figure_builder.h), so a figure looks the same wherever it
// is made.

#include <string>
#include <string_view>
#include <vector>

namespace attnlab::figures {

/// Where a figure's data come from.
enum class FigureSource {
  RunLog,          ///< <run>/run.h5, written while the run trains
  AnalysisReport,  ///< <run>/analysis/step-S/analysis.json (`attnlab-cli analyze`)
  CorefReport,     ///< <run>/analysis/coref-step-S/coref.json (`attnlab-cli probe coref`)
};

/// One figure of the catalog.
struct FigureSpec {
  std::string name;        ///< kebab-case id, e.g. "asa-fig5"
  std::string title;       ///< what it shows, one line
  std::string reproduces;  ///< the paper figure it redraws, e.g. "ASA (Wu et al. 2023) Fig. 5"
  std::string inputs;      ///< what it reads, in the user's terms
  std::string units;       ///< what the axes measure, with units
  FigureSource source = FigureSource::RunLog;
  int minRuns = 1;
  int maxRuns = 1;        ///< 0: any number of runs
  bool usesStep = false;  ///< --step picks the report's checkpoint step
  int widthPx = 800;      ///< default export size (logical pixels)
  int heightPx = 600;
};

/// Every figure, in the order `attnlab-cli export --list` prints them.
const std::vector<FigureSpec>& figureCatalog();

/// The figure called `name`, or nullptr.
const FigureSpec* findFigure(std::string_view name);

/// The figure called `name`; throws FigureError naming the figures that exist.
const FigureSpec& figureNamed(std::string_view name);

/// "1 run", "1 or more runs", "2 to 4 runs".
std::string runCountText(const FigureSpec& spec);

/// What the source is, in words ("run log", "analysis report", ...).
std::string sourceText(FigureSource source);

}  // namespace attnlab::figures
