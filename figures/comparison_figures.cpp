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
#include <memory>
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

// The violin rows one run has: its layers, or for the JSD its pairs of adjacent layers.
int violinRowsOf(const analysis::AttentionStatisticsResult& s, bool jsd) {
  return jsd ? s.layers - 1 : s.layers;
}

// Rows per run on the shared grid: as many as the deepest run has. The runs' JSD must share
// a unit to share a scale.
int rowsPerRun(const std::vector<RunReport>& runs, bool jsd) {
  int rows = 0;
  for (const auto& r : runs) {
    rows = std::max(rows, violinRowsOf(r.report.statistics, jsd));
    if (jsd && r.report.statistics.jsdBase != runs.front().report.statistics.jsdBase)
      throw FigureInputError(r.where.file.string(), "measures JSD in another unit than " +
                                                        runs.front().label +
                                                        " (analyse both with the same --jsd-unit)");
  }
  if (rows < 1) {
    throw FigureInputError(runs.front().where.file.string(),
                           jsd ? "the models have one layer: there is no adjacent-layer JSD"
                               : "the reports hold no per-head entropy");
  }
  return rows;
}

// What the grid shows, row by row: summaries and colour classes [rows * heads], each row's
// head order and its label.
struct ViolinRows {
  std::vector<analysis::DistributionSummary> summaries;
  std::vector<analysis::ColourClass> colours;
  std::vector<std::vector<int>> order;
  QStringList labels;
};

std::vector<int> identityOrder(int heads) {
  std::vector<int> identity(static_cast<std::size_t>(heads));
  std::iota(identity.begin(), identity.end(), 0);
  return identity;
}

// Grid row `row` from layer `l` of `run`; a run with fewer layers leaves its row empty.
void fillViolinRow(ViolinRows& grid, int row, int l, const RunReport& run, int heads, bool jsd) {
  const auto& s = run.report.statistics;
  const QString layer =
      jsd ? QStringLiteral("L%1-L%2").arg(l).arg(l + 1) : QStringLiteral("L%1").arg(l);
  grid.labels << layer + QStringLiteral(" ") + q(run.label);
  if (l >= violinRowsOf(s, jsd)) {
    grid.order[static_cast<std::size_t>(row)] = identityOrder(heads);
    return;
  }
  const auto& source = jsd ? s.adjacentJsd : s.entropy;
  const auto& classes = jsd ? s.jsdColours : s.entropyColours;
  std::vector<analysis::DistributionSummary> rowSummaries(static_cast<std::size_t>(heads));
  for (int h = 0; h < heads; ++h) {
    const auto i = static_cast<std::size_t>(l * heads + h);
    rowSummaries[static_cast<std::size_t>(h)] = source[i];
    grid.summaries[static_cast<std::size_t>(row * heads + h)] = source[i];
    if (i < classes.size()) grid.colours[static_cast<std::size_t>(row * heads + h)] = classes[i];
  }
  grid.order[static_cast<std::size_t>(row)] = analysis::orderByMedian(rowSummaries);
}

// Layer by layer with the runs interleaved, so the same layer of each run sits one row
// apart on the shared scale.
ViolinRows interleaveRuns(const std::vector<RunReport>& runs, int perRun, int heads, bool jsd) {
  const int R = static_cast<int>(runs.size());
  const int rows = perRun * R;
  ViolinRows grid;
  grid.summaries.resize(static_cast<std::size_t>(rows * heads));
  grid.colours.assign(grid.summaries.size(), analysis::ColourClass::None);
  grid.order.resize(static_cast<std::size_t>(rows));
  for (int l = 0; l < perRun; ++l)
    for (int r = 0; r < R; ++r)
      fillViolinRow(grid, l * R + r, l, runs[static_cast<std::size_t>(r)], heads, jsd);
  return grid;
}

widgets::ViolinScale violinScale(analysis::LogBase jsdBase, bool jsd) {
  if (!jsd) return widgets::ViolinScale::entropyNats();
  return jsdBase == analysis::LogBase::Bits ? widgets::ViolinScale::jsdBits()
                                            : widgets::ViolinScale::jsdNats();
}

// Row labels "L3 name"; the title names the runs compared.
std::unique_ptr<widgets::ViolinGrid> violinPlot(const FigureSpec& spec,
                                                const std::vector<RunReport>& runs, int heads,
                                                ViolinRows grid, bool jsd) {
  auto plot = std::make_unique<widgets::ViolinGrid>();
  plot->setScale(violinScale(runs.front().report.statistics.jsdBase, jsd));
  const int rows = static_cast<int>(grid.order.size());
  plot->setSummaries(rows, heads, std::move(grid.summaries), std::move(grid.colours),
                     std::move(grid.order));
  plot->setRowLabels(grid.labels);
  QStringList names;
  for (const auto& r : runs) names << q(r.label);
  plot->setTitle(q(spec.title) + QStringLiteral(": ") + names.join(QStringLiteral(" vs ")));
  return plot;
}

Figure interleavedViolins(const FigureSpec& spec, const FigureRequest& request, bool jsd) {
  const std::vector<RunReport> runs = loadAnalyses(request);
  const int heads = runs.front().report.statistics.heads;
  const int perRun = rowsPerRun(runs, jsd);
  const int rows = perRun * static_cast<int>(runs.size());
  Figure figure;
  figure.spec = &spec;
  figure.plot = violinPlot(spec, runs, heads, interleaveRuns(runs, perRun, heads, jsd), jsd);
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
