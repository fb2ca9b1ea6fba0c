#include "figures/labelled_reports.h"

#include "analysis/report/report_readers.h"
#include "figures/figure_catalog.h"
#include "widgets/plots/plot_widget.h"

#include <QStringList>

namespace attnlab::figures {

QString reportsTitle(const char* figure, const std::vector<LabelledReport>& runs) {
  const FigureSpec* spec = findFigure(figure);
  QStringList names;
  for (const auto& r : runs) names << QString::fromStdString(r.label);
  return QString::fromStdString(spec ? spec->title : figure) +
         QStringLiteral(", step %1: ").arg(runs.front().report->source.step) +
         names.join(QStringLiteral(" vs "));
}

}  // namespace attnlab::figures

namespace attnlab::figures::makers {

namespace fs = std::filesystem;

LoadedReports load(const FigureRequest& request) {
  LoadedReports r;
  std::vector<NamedRun> named;
  for (const auto& given : request.runs) {
    r.runDirs.push_back(normaliseRunPath(given));
    const fs::path& dir = r.runDirs.back();
    // A run's name from its log; a pretrained model folder (no log) from its report.
    const bool model = isModelFolder(dir);
    const std::string logged = model ? std::string() : openRunLog(dir).runName;
    r.where.push_back(findAnalysisReport(dir, request.step));
    r.reports.push_back(analysis::readAnalysisJson(r.where.back().file));
    const std::string& reported = r.reports.back().source.runName;
    named.push_back(
        {model ? (reported.empty() ? dir.filename().string() : reported) : logged, dir});
  }
  const auto labels = runLabels(named);
  for (std::size_t i = 0; i < r.reports.size(); ++i)
    r.labelled.push_back({&r.reports[i], labels[i], r.where[i].file.string()});
  return r;
}

Figure figureOf(const FigureSpec& spec, const LoadedReports& r,
                std::unique_ptr<widgets::PlotWidget> plot, const std::string& what) {
  Figure figure;
  figure.spec = &spec;
  figure.plot = std::move(plot);
  for (std::size_t i = 0; i < r.reports.size(); ++i) {
    figure.provenance.push_back({r.runDirs[i].string(), r.labelled[i].label,
                                 "checkpoint step " + std::to_string(r.reports[i].source.step),
                                 r.where[i].file.lexically_relative(r.runDirs[i]).string() + ": " +
                                     what + " over " +
                                     std::to_string(r.reports[i].evaluationSequences) +
                                     " sequences (" + r.reports[i].evaluationDescription + ")"});
  }
  return figure;
}

}  // namespace attnlab::figures::makers
