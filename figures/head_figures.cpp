// The head figures of an analysis report (head_figures.h) and their catalog makers.
#include "figures/head_figures.h"

#include "analysis/attention/head_embedding.h"
#include "analysis/report/report_readers.h"
#include "analysis/runs/analysis_report.h"
#include "figures/figure_catalog.h"
#include "figures/figure_errors.h"
#include "figures/figure_makers.h"
#include "figures/run_inputs.h"
#include "widgets/plots/matrix_heatmap.h"
#include "widgets/plots/scatter_plot.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

namespace attnlab::figures {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

QString titleFor(const char* figure, const analysis::AnalysisReport& report,
                 const std::string& runName) {
  const FigureSpec* spec = findFigure(figure);
  return q(spec ? spec->title : figure) + QStringLiteral(", step %1: ").arg(report.source.step) +
         q(runName);
}

QString jsdUnit(const analysis::AnalysisReport& report) {
  return report.statistics.jsdBase == analysis::LogBase::Bits ? QStringLiteral("bits")
                                                              : QStringLiteral("nats");
}

QStringList headLabels(int layers, int heads) {
  QStringList labels;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) labels << QStringLiteral("L%1 h%2").arg(l).arg(h);
  return labels;
}

void requireHeads(const analysis::AnalysisReport& report, const std::string& where) {
  const auto& s = report.statistics;
  if (s.layers < 1 || s.heads < 1 ||
      s.headSummaries.size() != static_cast<std::size_t>(s.layers * s.heads))
    throw FigureInputError(where, "the report holds no per-head summaries");
}

void requirePairwise(const analysis::AnalysisReport& report, const std::string& where) {
  const auto& s = report.statistics;
  const auto n = static_cast<std::size_t>(s.layers * s.heads);
  if (s.pairwiseJsd.empty() || s.pairwiseJsd.size() != n * n)
    throw FigureInputError(where,
                           "the report has no all-pairs head JSD (it was analysed with "
                           "--pairwise 0); run `attnlab-cli analyze RUN --pairwise 64` to add it");
}

}  // namespace

const std::vector<std::string>& clarkBehaviours() {
  static const std::vector<std::string> names = {"first token ([CLS] / <s>)",
                                                 "separator ([SEP] / </s>)",
                                                 "periods",
                                                 "previous token",
                                                 "next token",
                                                 "same token (self)"};
  return names;
}

void drawClarkFig2(widgets::ScatterPlot& plot, const analysis::AnalysisReport& report,
                   const std::string& runName, const std::string& where) {
  requireHeads(report, where);
  const auto& s = report.statistics;
  const auto value = [](const analysis::HeadSummary& h, int b) {
    const double v[] = {h.first, h.separator, h.period, h.previous, h.next, h.self};
    return v[b];
  };
  QVector<widgets::XyPanel> panels;
  for (int b = 0; b < 6; ++b) {
    widgets::XyPanel panel;
    panel.title = q(clarkBehaviours()[static_cast<std::size_t>(b)]);
    panel.xLabel = QStringLiteral("layer");
    // Short: six panels share the height; the catalog's units say "of the row's mass".
    panel.yLabel = QStringLiteral("mean attention (fraction)");
    panel.integerX = true;
    for (int l = 0; l < s.layers; ++l) {
      widgets::XySeries series;
      series.name = QStringLiteral("layer %1").arg(l);
      series.colour = widgets::ScatterPlot::layerColour(l, s.layers);
      for (int h = 0; h < s.heads; ++h) {
        series.x << l;
        series.y << value(s.headSummaries[static_cast<std::size_t>(l * s.heads + h)], b);
      }
      panel.series << series;
    }
    panels << panel;
  }
  plot.setPanels(panels, 3);
  plot.setTitle(titleFor("clark-fig2", report, runName));
}

void drawHeadJsdMatrix(widgets::MatrixHeatmap& plot, const analysis::AnalysisReport& report,
                       const std::string& runName, const std::string& where) {
  requirePairwise(report, where);
  const auto& s = report.statistics;
  const int n = s.layers * s.heads;
  widgets::HeatmapPanel panel;
  panel.values = widgets::Matrix(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      panel.values.at(i, j) =
          static_cast<float>(s.pairwiseJsd[static_cast<std::size_t>(i) * n + j]);
  panel.rowLabels = panel.columnLabels = headLabels(s.layers, s.heads);
  plot.setValueRange(std::nullopt);
  plot.setAxisTitles(QStringLiteral("head (layer, head)"), QStringLiteral("head (layer, head)"));
  plot.setValueLabel(QStringLiteral("mean JSD between the heads (%1), over %2 sequences")
                         .arg(jsdUnit(report))
                         .arg(s.pairwiseSequencesUsed));
  plot.setPanels({panel});
  plot.setTitle(titleFor("head-jsd-matrix", report, runName));
}

analysis::HeadEmbedding drawHeadJsdMds(widgets::ScatterPlot& plot,
                                       const analysis::AnalysisReport& report,
                                       const std::string& runName, const std::string& where) {
  requirePairwise(report, where);
  const auto& s = report.statistics;
  const int n = s.layers * s.heads;
  analysis::HeadEmbedding e;
  try {
    e = analysis::classicalMds(s.pairwiseJsd, n, 2);
  } catch (const std::invalid_argument& error) {
    throw FigureInputError(where,
                           std::string("the pairwise JSD cannot be embedded: ") + error.what());
  }
  widgets::XyPanel panel;
  const QString unit = jsdUnit(report);
  panel.xLabel = QStringLiteral("MDS axis 1 (JSD, %1)").arg(unit);
  panel.yLabel = QStringLiteral("MDS axis 2 (JSD, %1)").arg(unit);
  panel.title = QStringLiteral(
                    "classical MDS of the all-pairs JSD; the two axes keep %1% of "
                    "the variance")
                    .arg(QString::number(100.0 * e.explained, 'f', 1));
  panel.equalAspect = true;
  for (int l = 0; l < s.layers; ++l) {
    widgets::XySeries series;
    series.name = QStringLiteral("layer %1").arg(l);
    series.colour = widgets::ScatterPlot::layerColour(l, s.layers);
    for (int h = 0; h < s.heads; ++h) {
      const auto i = static_cast<std::size_t>(l * s.heads + h);
      series.x << e.coords[2 * i];
      series.y << e.coords[2 * i + 1];
    }
    panel.series << series;
  }
  plot.setPanels({panel});
  plot.setTitle(titleFor("head-jsd-mds", report, runName));
  return e;
}

void drawGuidanceConformity(widgets::MatrixHeatmap& plot, const analysis::AnalysisReport& report,
                            const std::string& runName, const std::string& where,
                            std::optional<int> pattern) {
  const auto& s = report.statistics;
  const std::size_t patterns = analysis::kGuidancePatterns.size();
  if (s.layers < 1 || s.heads < 1 ||
      s.guidanceDistance.size() != static_cast<std::size_t>(s.layers * s.heads) * patterns)
    throw FigureInputError(where, "the report holds no guidance conformity per head");
  QVector<widgets::HeatmapPanel> panels;
  for (std::size_t p = 0; p < patterns; ++p) {
    if (pattern && static_cast<std::size_t>(*pattern) != p) continue;
    widgets::HeatmapPanel panel;
    panel.title = QStringLiteral("pattern \"%1\"").arg(analysis::kGuidancePatterns[p]);
    panel.values = widgets::Matrix(s.layers, s.heads);
    for (int l = 0; l < s.layers; ++l)
      for (int h = 0; h < s.heads; ++h)
        panel.values.at(l, h) = static_cast<float>(
            s.guidanceDistance[static_cast<std::size_t>(l * s.heads + h) * patterns + p]);
    panels << panel;
  }
  plot.setAxisTitles(QStringLiteral("head"), QStringLiteral("layer"));
  plot.setValueLabel(QStringLiteral("mean total-variation distance (0 = follows the pattern)"));
  plot.setValueRange(std::pair{0.0, 1.0});
  plot.setPanels(panels, panels.size() > 1 ? 3 : 1);
  plot.setTitle(titleFor("guidance-conformity", report, runName));
}

std::vector<std::string> trainingSources(const analysis::AnalysisReport& report) {
  std::vector<std::string> sources;
  for (const char* source : {"snapshot", "checkpoint"})
    for (const auto& p : report.overTraining)
      if (p.source == source) {
        sources.emplace_back(source);
        break;
      }
  return sources;
}

std::string defaultTrainingSource(const analysis::AnalysisReport& report) {
  std::ptrdiff_t snapshots = 0, checkpoints = 0;
  for (const auto& p : report.overTraining) (p.source == "checkpoint" ? checkpoints : snapshots)++;
  if (snapshots + checkpoints == 0) return {};
  return checkpoints >= snapshots ? "checkpoint" : "snapshot";
}

std::vector<const analysis::TrainingStatisticsPoint*> trainingPoints(
    const analysis::AnalysisReport& report, const std::string& source) {
  const std::string wanted = source.empty() ? defaultTrainingSource(report) : source;
  std::vector<const analysis::TrainingStatisticsPoint*> points;
  for (const auto& p : report.overTraining)
    if (p.source == wanted) points.push_back(&p);
  std::stable_sort(points.begin(), points.end(),
                   [](const auto* a, const auto* b) { return a->step < b->step; });
  return points;
}

namespace {

using TrainingPoints = std::vector<const analysis::TrainingStatisticsPoint*>;
/// One per-head statistic of a training point: head h of row r at r * heads + h.
using PerHeadValues = std::vector<double> analysis::TrainingStatisticsPoint::*;

/// What the panels of the training figure share.
struct TrainingPanelFrame {
  const TrainingPoints& points;
  int layers = 0;  ///< of the model: the layer colours
  int heads = 0;
  QString sourceText;
  std::optional<std::int64_t> marker;
};

/// One panel: `rows` layers from `firstLayer` (the JSD to the layer below starts at 1).
struct TrainingStatistic {
  QString title;
  QString yLabel;
  int rows = 0;
  int firstLayer = 0;
  PerHeadValues values = nullptr;
};

QString trainingSourceText(const TrainingPoints& points) {
  return points.front()->source == "checkpoint"
             ? QStringLiteral("evaluation set under each checkpoint")
             : QStringLiteral("the log's attention snapshots (probe batch)");
}

/// One head's statistic against step, drawn faint behind its layer's mean.
widgets::XySeries headSeries(const TrainingPoints& points, PerHeadValues values, std::size_t i,
                             const QColor& colour) {
  widgets::XySeries head;
  head.colour = colour;
  head.lines = true;
  head.markers = false;
  head.opacity = 0.35;
  for (const auto* p : points) {
    const std::vector<double>& v = p->*values;
    if (i >= v.size()) continue;
    head.x << static_cast<double>(p->step);
    head.y << v[i];
  }
  return head;
}

/// A layer's mean over its heads at each step, of the heads with a finite value there.
widgets::XySeries layerMeanSeries(const TrainingPanelFrame& frame, PerHeadValues values, int row,
                                  int layer, const QColor& colour) {
  widgets::XySeries mean;
  mean.name = QStringLiteral("layer %1 (mean of its heads)").arg(layer);
  mean.colour = colour;
  mean.lines = true;
  for (const auto* p : frame.points) {
    const std::vector<double>& v = p->*values;
    double sum = 0;
    int n = 0;
    for (int h = 0; h < frame.heads; ++h) {
      const auto i = static_cast<std::size_t>(row * frame.heads + h);
      if (i < v.size() && std::isfinite(v[i])) sum += v[i], ++n;
    }
    if (n == 0) continue;
    mean.x << static_cast<double>(p->step);
    mean.y << sum / n;
  }
  return mean;
}

/// A panel per statistic: heads faint, layer means bold, coloured by layer.
widgets::XyPanel trainingPanel(const TrainingPanelFrame& frame, const TrainingStatistic& stat) {
  widgets::XyPanel panel;
  panel.title = stat.title + QStringLiteral(" - ") + frame.sourceText;
  panel.xLabel = QStringLiteral("step");
  panel.yLabel = stat.yLabel;
  for (int r = 0; r < stat.rows; ++r) {
    const int layer = r + stat.firstLayer;
    const QColor colour = widgets::ScatterPlot::layerColour(layer, frame.layers);
    for (int h = 0; h < frame.heads; ++h)
      panel.series << headSeries(frame.points, stat.values,
                                 static_cast<std::size_t>(r * frame.heads + h), colour);
    panel.series << layerMeanSeries(frame, stat.values, r, layer, colour);
  }
  if (frame.marker) panel.marker = static_cast<double>(*frame.marker);
  return panel;
}

}  // namespace

void drawTrainingStatistics(widgets::ScatterPlot& plot, const analysis::AnalysisReport& report,
                            const std::string& runName, const std::string& where,
                            std::optional<std::int64_t> marker, const std::string& source) {
  const auto& s = report.statistics;
  const TrainingPoints points = trainingPoints(report, source);
  if (points.empty() || s.layers < 1 || s.heads < 1)
    throw FigureInputError(where,
                           "the report has no statistics over training (the run logged no "
                           "attention snapshots, or it was analysed with --no-snapshots); run "
                           "`attnlab-cli analyze RUN --over-checkpoints` to add them");
  const TrainingPanelFrame frame{points, s.layers, s.heads, trainingSourceText(points), marker};
  QVector<widgets::XyPanel> panels;
  panels << trainingPanel(frame, {QStringLiteral("median entropy per head"),
                                  QStringLiteral("median row entropy (nats)"), s.layers, 0,
                                  &analysis::TrainingStatisticsPoint::medianEntropy});
  if (s.layers > 1)
    panels << trainingPanel(
        frame, {QStringLiteral("median JSD to the layer below"),
                QStringLiteral("median JSD to the layer below (%1)").arg(jsdUnit(report)),
                s.layers - 1, 1, &analysis::TrainingStatisticsPoint::medianAdjacentJsd});
  plot.setPanels(panels, static_cast<int>(panels.size()));
  plot.setTitle(titleFor("training-statistics", report, runName));
}

}  // namespace attnlab::figures

namespace attnlab::figures::makers {
namespace {
namespace fs = std::filesystem;

struct LoadedAnalysis {
  fs::path runDir;
  ReportLocation where;
  analysis::AnalysisReport report;
  std::string runName;
};

LoadedAnalysis load(const FigureRequest& request) {
  LoadedAnalysis r;
  r.runDir = normaliseRunPath(request.runs.front());
  std::error_code ec;
  if (!fs::is_directory(r.runDir, ec))
    throw FigureInputError(r.runDir.string(), "no such run folder");
  r.where = findAnalysisReport(r.runDir, request.step);
  r.report = analysis::readAnalysisJson(r.where.file);
  r.runName =
      r.report.source.runName.empty() ? r.runDir.filename().string() : r.report.source.runName;
  return r;
}

Figure figureOf(const FigureSpec& spec, const LoadedAnalysis& r,
                std::unique_ptr<widgets::PlotWidget> plot, const std::string& what) {
  Figure figure;
  figure.spec = &spec;
  figure.plot = std::move(plot);
  const auto& src = r.report.source;
  const std::string checkpoint = src.checkpoint.empty()
                                     ? std::string()
                                     : " (" + fs::path(src.checkpoint).filename().string() + ")";
  figure.provenance.push_back({r.runDir.string(), r.runName,
                               "checkpoint step " + std::to_string(src.step) + checkpoint,
                               r.where.file.lexically_relative(r.runDir).string() + ": " + what});
  return figure;
}

std::string over(const analysis::AnalysisReport& report) {
  return " over " + std::to_string(report.evaluationSequences) + " sequences (" +
         report.evaluationDescription + ")";
}

}  // namespace

Figure clarkFig2(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = load(request);
  auto plot = std::make_unique<widgets::ScatterPlot>();
  drawClarkFig2(*plot, r.report, r.runName, r.where.file.string());
  return figureOf(spec, r, std::move(plot), "per-head attention_to" + over(r.report));
}

Figure headJsdMatrix(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = load(request);
  auto plot = std::make_unique<widgets::MatrixHeatmap>();
  drawHeadJsdMatrix(*plot, r.report, r.runName, r.where.file.string());
  Figure figure =
      figureOf(spec, r, std::move(plot),
               "pairwise_jsd over " + std::to_string(r.report.statistics.pairwiseSequencesUsed) +
                   " sequences");
  return figure;
}

Figure headJsdMds(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = load(request);
  auto plot = std::make_unique<widgets::ScatterPlot>();
  drawHeadJsdMds(*plot, r.report, r.runName, r.where.file.string());
  return figureOf(spec, r, std::move(plot),
                  "pairwise_jsd over " + std::to_string(r.report.statistics.pairwiseSequencesUsed) +
                      " sequences, embedded by classical MDS");
}

Figure guidanceConformity(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = load(request);
  auto plot = std::make_unique<widgets::MatrixHeatmap>();
  drawGuidanceConformity(*plot, r.report, r.runName, r.where.file.string());
  return figureOf(spec, r, std::move(plot),
                  "per-head guidance_conformity total_variation" + over(r.report));
}

Figure trainingStatistics(const FigureSpec& spec, const FigureRequest& request) {
  const auto r = load(request);
  auto plot = std::make_unique<widgets::ScatterPlot>();
  drawTrainingStatistics(*plot, r.report, r.runName, r.where.file.string());
  const auto points = trainingPoints(r.report);
  return figureOf(spec, r, std::move(plot),
                  "over_training (" + points.front()->source + " points, steps " +
                      std::to_string(points.front()->step) + "-" +
                      std::to_string(points.back()->step) + ")");
}

}  // namespace attnlab::figures::makers
