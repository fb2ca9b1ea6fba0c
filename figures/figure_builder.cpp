#include "figures/figure_builder.h"

#include "figures/comparison_makers.h"
#include "figures/figure_errors.h"
#include "figures/figure_makers.h"

#include <QString>

#include <map>

namespace attnlab::figures {
namespace {

using Maker = Figure (*)(const FigureSpec&, const FigureRequest&);

// The catalog's names and the code that draws each. A catalog entry without a maker is
// caught by the figures test (every listed figure must build).
const std::map<std::string, Maker, std::less<>>& makerTable() {
  static const std::map<std::string, Maker, std::less<>> table = {
      {"loss-curves", &makers::lossCurves},
      {"guidance-fig3", &makers::guidanceFig3},
      {"asa-fig5", &makers::asaFig5},
      {"sesame-fig4", &makers::sesameFig4},
      // The attention-health series of the run log (health_figures.cpp).
      {"health-sink-rate", &makers::healthSinkRate},
      {"health-massive", &makers::healthMassive},
      {"health-entropy-logits", &makers::healthEntropyLogits},
      {"entropy-violins", &makers::entropyViolins},
      {"jsd-violins", &makers::jsdViolins},
      {"coref-heads", &makers::corefHeads},
      // The head figures of an analysis report (head_figures.cpp).
      {"clark-fig2", &makers::clarkFig2},
      {"head-jsd-matrix", &makers::headJsdMatrix},
      {"head-jsd-mds", &makers::headJsdMds},
      {"head-importance", &makers::headImportance},
      {"head-pruning", &makers::headPruning},
      {"heads-matching", &makers::headsMatching},
      {"layer-cka", &makers::layerCka},
      {"guidance-conformity", &makers::guidanceConformity},
      {"training-statistics", &makers::trainingStatistics},
      {"rollout-spread", &makers::rolloutSpread},
      {"norm-weight-correlation", &makers::normWeightCorrelation},
      {"logit-lens", &makers::logitLens},
      {"realformer-fig4", &makers::realformerFig4},
      {"realformer-fig6", &makers::realformerFig6},
      {"guidance-table8", &makers::guidanceTable8},
  };
  return table;
}

void checkRunCount(const FigureSpec& spec, std::size_t runs) {
  const int n = static_cast<int>(runs);
  if (n < spec.minRuns || (spec.maxRuns > 0 && n > spec.maxRuns)) {
    throw FigureError(spec.name, "takes " + runCountText(spec) + ", got " + std::to_string(n));
  }
}

}  // namespace

Figure buildFigure(const FigureRequest& request) {
  const FigureSpec& spec = figureNamed(request.figure);
  checkRunCount(spec, request.runs.size());
  const auto maker = makerTable().find(spec.name);
  if (maker == makerTable().end()) {
    throw FigureError(spec.name, "listed in the catalog but has no maker in figure_builder.cpp");
  }
  Figure figure = maker->second(spec, request);
  figure.spec = &spec;
  if (figure.widthPx <= 0) figure.widthPx = spec.widthPx;
  if (figure.heightPx <= 0) figure.heightPx = spec.heightPx;
  return figure;
}

widgets::ExportOptions defaultExportOptions(const Figure& figure) {
  widgets::ExportOptions options;
  options.widthPx = figure.widthPx;
  options.heightPx = figure.heightPx;
  return options;
}

void exportFigure(Figure& figure, const std::filesystem::path& path, widgets::ExportFormat format,
                  const widgets::ExportOptions& options) {
  const widgets::ExportResult result =
      figure.plot->exportTo(QString::fromStdString(path.string()), format, options);
  // The result's message already starts with the path.
  if (!result.ok) throw FigureError("", result.error.toStdString());
}

std::string formatExtension(widgets::ExportFormat format) {
  switch (format) {
    case widgets::ExportFormat::Png:
      return "png";
    case widgets::ExportFormat::Svg:
      return "svg";
    case widgets::ExportFormat::Pdf:
      return "pdf";
  }
  return {};
}

}  // namespace attnlab::figures
