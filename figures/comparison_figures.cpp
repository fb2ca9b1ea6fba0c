// The figures that put runs side by side on one scale: RealFormer's violins (Fig. 4 and 6:
// Post-LN against RealFormer, the paper's comparison) and attention guidance's Table 8
// (coreference best head and mean per run).
#include "analysis/report/report_readers.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/coref_probe_report.h"
#include "figures/comparison_makers.h"
#include "figures/figure_catalog.h"
#include "figures/figure_errors.h"
#include "figures/run_inputs.h"
#include "figures/run_summary.h"
#include "widgets/plots/bar_chart.h"
#include "widgets/plots/violin_grid.h"

#include <QString>
#include <QStringList>

#include <algorithm>
#include <numeric>
#include <set>

namespace attnlab::figures::makers {
namespace {
namespace fs = std::filesystem;

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

struct RunReport {
  fs::path runDir;
  ReportLocation where;
  analysis::AnalysisReport report;
  std::string label;
};

std::vector<RunReport> loadAnalyses(const FigureRequest& request) {
  std::vector<RunReport> runs;
  std::vector<RunLogInput> logs;
  for (const auto& given : request.runs) {
    RunReport r;
    r.runDir = normaliseRunPath(given);
    logs.push_back(openRunLog(r.runDir));
    r.where = findAnalysisReport(r.runDir, request.step);
    r.report = analysis::readAnalysisJson(r.where.file);
    runs.push_back(std::move(r));
  }
  const std::vector<std::string> labels = runLabels(logs);
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i].label = labels[i];
  // Violins of different head counts cannot share a row layout.
  for (const auto& r : runs) {
    if (r.report.statistics.heads != runs.front().report.statistics.heads)
      throw FigureInputError(r.where.file.string(),
                             "has " + std::to_string(r.report.statistics.heads) +
                                 " heads per layer, " + runs.front().label + " has " +
                                 std::to_string(runs.front().report.statistics.heads) +
                                 ": violins are compared head row by head row");
  }
  return runs;
}

FigureProvenance provenanceOf(const RunReport& r, const std::string& what) {
  return {r.runDir.string(), r.label, "checkpoint step " + std::to_string(r.where.step),
          r.where.file.lexically_relative(r.runDir).string() + ": " + what};
}

// Row labels "L3 name", layer by layer with the runs interleaved, so the same layer of each
// run sits one row apart on the shared scale.
Figure interleavedViolins(const FigureSpec& spec, const FigureRequest& request, bool jsd) {
  const std::vector<RunReport> runs = loadAnalyses(request);
  const int heads = runs.front().report.statistics.heads;
  int rowsPerRun = 0;
  for (const auto& r : runs) {
    const auto& s = r.report.statistics;
    rowsPerRun = std::max(rowsPerRun, jsd ? s.layers - 1 : s.layers);
    if (jsd && r.report.statistics.jsdBase != runs.front().report.statistics.jsdBase)
      throw FigureInputError(r.where.file.string(), "measures JSD in another unit than " +
                                                        runs.front().label +
                                                        " (analyse both with the same --jsd-unit)");
  }
  if (rowsPerRun < 1) {
    throw FigureInputError(runs.front().where.file.string(),
                           jsd ? "the models have one layer: there is no adjacent-layer JSD"
                               : "the reports hold no per-head entropy");
  }
  const int R = static_cast<int>(runs.size());
  const int rows = rowsPerRun * R;
  std::vector<analysis::DistributionSummary> summaries(static_cast<std::size_t>(rows * heads));
  std::vector<analysis::ColourClass> colours(summaries.size(), analysis::ColourClass::None);
  std::vector<std::vector<int>> order(static_cast<std::size_t>(rows));
  QStringList labels;
  for (int l = 0; l < rowsPerRun; ++l) {
    for (int r = 0; r < R; ++r) {
      const auto& s = runs[static_cast<std::size_t>(r)].report.statistics;
      const int row = l * R + r;
      const auto& source = jsd ? s.adjacentJsd : s.entropy;
      const auto& classes = jsd ? s.jsdColours : s.entropyColours;
      const bool has = l < (jsd ? s.layers - 1 : s.layers);
      std::vector<analysis::DistributionSummary> rowSummaries(static_cast<std::size_t>(heads));
      for (int h = 0; h < heads && has; ++h) {
        const auto i = static_cast<std::size_t>(l * heads + h);
        rowSummaries[static_cast<std::size_t>(h)] = source[i];
        summaries[static_cast<std::size_t>(row * heads + h)] = source[i];
        if (i < classes.size()) colours[static_cast<std::size_t>(row * heads + h)] = classes[i];
      }
      order[static_cast<std::size_t>(row)] = has ? analysis::orderByMedian(rowSummaries) : [heads] {
        std::vector<int> identity(static_cast<std::size_t>(heads));
        std::iota(identity.begin(), identity.end(), 0);
        return identity;
      }();
      const QString layer =
          jsd ? QStringLiteral("L%1-L%2").arg(l).arg(l + 1) : QStringLiteral("L%1").arg(l);
      labels << layer + QStringLiteral(" ") + q(runs[static_cast<std::size_t>(r)].label);
    }
  }
  auto plot = std::make_unique<widgets::ViolinGrid>();
  const auto base = runs.front().report.statistics.jsdBase;
  plot->setScale(jsd ? (base == analysis::LogBase::Bits ? widgets::ViolinScale::jsdBits()
                                                        : widgets::ViolinScale::jsdNats())
                     : widgets::ViolinScale::entropyNats());
  plot->setSummaries(rows, heads, std::move(summaries), std::move(colours), std::move(order));
  plot->setRowLabels(labels);
  QStringList names;
  for (const auto& r : runs) names << q(r.label);
  plot->setTitle(q(spec.title) + QStringLiteral(": ") + names.join(QStringLiteral(" vs ")));

  Figure figure;
  figure.spec = &spec;
  figure.plot = std::move(plot);
  for (const auto& r : runs)
    figure.provenance.push_back(
        provenanceOf(r, jsd ? "per-head JSD to the layer below" : "per-head row entropy (nats)"));
  figure.heightPx = std::max(spec.heightPx, 110 + 110 * rows);
  return figure;
}

}  // namespace

Figure realformerFig4(const FigureSpec& spec, const FigureRequest& request) {
  return interleavedViolins(spec, request, false);
}

Figure realformerFig6(const FigureSpec& spec, const FigureRequest& request) {
  return interleavedViolins(spec, request, true);
}

Figure guidanceTable8(const FigureSpec& spec, const FigureRequest& request) {
  QStringList categories;
  QVector<widgets::BarSeries> series{{QStringLiteral("best head"), {}},
                                     {QStringLiteral("mean over heads"), {}}};
  Figure figure;
  figure.spec = &spec;
  std::vector<RunLogInput> logs;
  for (const auto& run : request.runs) logs.push_back(openRunLog(run));
  const std::vector<std::string> labels = runLabels(logs);
  for (std::size_t i = 0; i < logs.size(); ++i) {
    const ReportLocation where = findCorefReport(logs[i].runDir, request.step);
    const analysis::CorefProbeReport probe = analysis::readCorefJson(where.file);
    const auto& p = probe.result;
    if (p.items == 0)
      throw FigureInputError(where.file.string(),
                             "the probe scored no mentions (" + probe.datasetDescription + ")");
    categories << q(labels[i]) + QStringLiteral("\n") + q(headName(p.bestLayer, p.bestHead));
    series[0].values << p.bestAccuracy;
    series[1].values << p.meanAccuracy;
    figure.provenance.push_back(
        {logs[i].runDir.string(), labels[i], "checkpoint step " + std::to_string(where.step),
         where.file.lexically_relative(logs[i].runDir).string() + ": best head " +
             headName(p.bestLayer, p.bestHead) + " and mean accuracy over " +
             std::to_string(p.items) + " mentions (" + probe.datasetDescription + ")"});
  }
  auto plot = std::make_unique<widgets::BarChart>();
  plot->setBars(categories, series);
  plot->setValueLabel(QStringLiteral("antecedent accuracy (fraction of mentions)"));
  plot->setValueRange(0, 1.1);
  plot->customPlot()->xAxis->setLabel(QStringLiteral("run (best head)"));
  plot->setTitle(q(spec.title));
  figure.plot = std::move(plot);
  figure.widthPx = std::max(spec.widthPx, 200 + 160 * static_cast<int>(categories.size()));
  return figure;
}

}  // namespace attnlab::figures::makers
