// The figures drawn from a run's reports: RealFormer's entropy (Fig. 4) and adjacent-layer
// JSD (Fig. 6) violins from `attnlab-cli analyze`, the coreference heads from
// `attnlab-cli probe coref`.
#include "analysis/report/report_readers.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/coref_probe_report.h"
#include "figures/analysis_figures.h"
#include "figures/figure_catalog.h"
#include "figures/figure_errors.h"
#include "figures/figure_makers.h"
#include "figures/run_inputs.h"
#include "widgets/plots/probe_matrix_plot.h"
#include "widgets/plots/violin_grid.h"

#include <QString>
#include <QVector>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace attnlab::figures::makers {
namespace {
namespace fs = std::filesystem;

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// A violin row needs room for its axis labels: the papers' 12-layer grids get taller
// figures than the spec's default.
int violinHeight(const FigureSpec& spec, int rows) {
  return std::max(spec.heightPx, 110 + 120 * rows);
}

// A report of a run, read back, with where it came from.
template <typename Report>
struct LoadedReport {
  fs::path runDir;
  ReportLocation where;
  Report report;
  std::string runName;
};

fs::path existingRun(const FigureRequest& request) {
  const fs::path run = normaliseRunPath(request.runs.front());
  std::error_code ec;
  if (!fs::is_directory(run, ec)) throw FigureInputError(run.string(), "no such run folder");
  return run;
}

template <typename Report>
void nameRun(LoadedReport<Report>& r) {
  r.runName =
      r.report.source.runName.empty() ? r.runDir.filename().string() : r.report.source.runName;
}

// The request's run, its report at the step asked for (`find`: where it is, `read`: the
// report read from there) and the run's name.
template <typename Report, typename Find, typename Read>
LoadedReport<Report> loadReport(const FigureRequest& request, Find find, Read read) {
  LoadedReport<Report> r;
  r.runDir = existingRun(request);
  r.where = find(r.runDir, request.step);
  r.report = read(r.where.file);
  nameRun(r);
  return r;
}

LoadedReport<analysis::AnalysisReport> loadAnalysis(const FigureRequest& request) {
  return loadReport<analysis::AnalysisReport>(request, findAnalysisReport,
                                              analysis::readAnalysisJson);
}

LoadedReport<analysis::CorefProbeReport> loadCoref(const FigureRequest& request) {
  return loadReport<analysis::CorefProbeReport>(request, findCorefReport, analysis::readCorefJson);
}

// "checkpoint step 4 (step-0000004.h5)" and "<file in the run>: <what>".
template <typename Report>
FigureProvenance provenanceOf(const LoadedReport<Report>& r, const std::string& what) {
  const auto& src = r.report.source;
  const std::string checkpoint = src.checkpoint.empty()
                                     ? std::string()
                                     : " (" + fs::path(src.checkpoint).filename().string() + ")";
  return {r.runDir.string(), r.runName, "checkpoint step " + std::to_string(src.step) + checkpoint,
          r.where.file.lexically_relative(r.runDir).string() + ": " + what};
}

template <typename Report>
QString titleOf(const FigureSpec& spec, const LoadedReport<Report>& r) {
  return q(spec.title) + QStringLiteral(", step %1: ").arg(r.report.source.step) + q(r.runName);
}

std::string evaluatedOn(const analysis::AnalysisReport& report) {
  return " over " + std::to_string(report.evaluationSequences) + " sequences (" +
         report.evaluationDescription + ")";
}

Figure figureOf(const FigureSpec& spec, std::unique_ptr<widgets::PlotWidget> plot,
                FigureProvenance provenance) {
  Figure figure;
  figure.spec = &spec;
  figure.plot = std::move(plot);
  figure.provenance.push_back(std::move(provenance));
  return figure;
}

// A violin grid drawn by `draw` (the Analysis tab's drawing too), `rows` rows tall; the
// provenance says what a violin is (`what`) and what the report evaluated.
using DrawViolins = void (*)(widgets::ViolinGrid&, const analysis::AnalysisReport&,
                             const std::string&, const std::string&);
Figure violinFigure(const FigureSpec& spec, const LoadedReport<analysis::AnalysisReport>& r,
                    DrawViolins draw, const std::string& what, int rows) {
  auto plot = std::make_unique<widgets::ViolinGrid>();
  draw(*plot, r.report, r.runName, r.where.file.string());
  Figure figure = figureOf(spec, std::move(plot), provenanceOf(r, what + evaluatedOn(r.report)));
  figure.heightPx = violinHeight(spec, rows);
  return figure;
}

}  // namespace

Figure entropyViolins(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = loadAnalysis(request);
  return violinFigure(spec, r, drawEntropyViolins, "per-head entropy (nats)",
                      r.report.statistics.layers);
}

Figure jsdViolins(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = loadAnalysis(request);
  const auto& s = r.report.statistics;
  const std::string unit = s.jsdBase == analysis::LogBase::Bits ? "bits" : "nats";
  // One row a pair of adjacent layers.
  return violinFigure(spec, r, drawJsdViolins, "per-head JSD to the layer below (" + unit + ")",
                      s.layers - 1);
}

Figure corefHeads(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = loadCoref(request);
  const auto& p = r.report.result;
  auto plot = std::make_unique<widgets::ProbeMatrixPlot>();
  drawCorefHeads(*plot, r.report, r.runName, r.where.file.string());
  return figureOf(spec, std::move(plot),
                  provenanceOf(r, "antecedent accuracy per head over " + std::to_string(p.items) +
                                      " mentions (" + r.report.datasetDescription + ")"));
}

}  // namespace attnlab::figures::makers

namespace attnlab::figures {

namespace {
QString violinTitle(const char* figure, const analysis::AnalysisReport& report,
                    const std::string& runName) {
  const FigureSpec* spec = findFigure(figure);
  return QString::fromStdString(spec ? spec->title : figure) +
         QStringLiteral(", step %1: ").arg(report.source.step) + QString::fromStdString(runName);
}
}  // namespace

void drawEntropyViolins(widgets::ViolinGrid& plot, const analysis::AnalysisReport& report,
                        const std::string& runName, const std::string& where) {
  const auto& s = report.statistics;
  if (s.layers < 1 || s.entropy.empty())
    throw FigureInputError(where, "the report holds no per-head entropy");
  plot.showEntropy(s);
  plot.setTitle(violinTitle("entropy-violins", report, runName));
}

void drawCorefHeads(widgets::ProbeMatrixPlot& plot, const analysis::CorefProbeReport& report,
                    const std::string& runName, const std::string& where) {
  const auto& p = report.result;
  if (p.layers < 1 || p.heads < 1 || p.items == 0)
    throw FigureInputError(where,
                           "the probe scored no mentions (" + report.datasetDescription + ")");
  widgets::Matrix accuracy(p.layers, p.heads);
  for (int l = 0; l < p.layers; ++l)
    for (int h = 0; h < p.heads; ++h) accuracy.at(l, h) = static_cast<float>(p.accuracyAt(l, h));
  QVector<widgets::ProbeBaseline> baselines;
  for (const auto& b : p.baselines)
    baselines.push_back({QString::fromStdString(b.name), b.accuracy});
  // Short: the colour scale is as tall as the matrix, often a few rows.
  plot.setValueLabel(QStringLiteral("accuracy (fraction)"));
  plot.setAccuracies(accuracy);
  plot.setBaselines(baselines);
  const FigureSpec* spec = findFigure("coref-heads");
  plot.setTitle(QString::fromStdString(spec ? spec->title : "coref-heads") +
                QStringLiteral(", step %1: ").arg(report.source.step) +
                QString::fromStdString(runName));
}

void drawJsdViolins(widgets::ViolinGrid& plot, const analysis::AnalysisReport& report,
                    const std::string& runName, const std::string& where) {
  const auto& s = report.statistics;
  if (s.layers < 2 || s.adjacentJsd.empty())
    throw FigureInputError(where,
                           "the model has one layer: there is no adjacent-layer JSD to draw");
  plot.showAdjacentJsd(s);
  plot.setTitle(violinTitle("jsd-violins", report, runName));
}

}  // namespace attnlab::figures
