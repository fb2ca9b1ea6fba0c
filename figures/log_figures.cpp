// The figures drawn from run logs: loss curves, attention guidance's Fig. 3, ASA's Fig. 5
// and SesameBERT's Fig. 4.
#include "figures/figure_errors.h"
#include "figures/figure_makers.h"
#include "figures/run_inputs.h"
#include "widgets/plots/curve_plot.h"
#include "widgets/plots/layer_series_plot.h"

#include <QColor>
#include <QString>
#include <QStringList>

namespace attnlab::figures::makers {
namespace {

// The MLM loss. With a mechanism that adds a loss term (guidance, ASA) the optimised sum is
// train/total_loss; train/loss stays the masked-LM cross-entropy alone (docs/run-log.md), the
// quantity the papers plot.
constexpr const char* kMlmLoss = "train/loss";
constexpr const char* kEvalLoss = "eval/loss";
// Logged only by guided runs (core/mechanisms/attention_guidance_mechanism.cpp).
constexpr const char* kGuidanceLoss = "guidance/loss";

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

std::vector<double> toDoubles(const std::vector<std::int64_t>& v) {
  return std::vector<double>(v.begin(), v.end());
}

std::vector<RunLogInput> openRuns(const FigureRequest& request) {
  std::vector<RunLogInput> runs;
  for (const auto& path : request.runs) runs.push_back(openRunLog(path));
  return runs;
}

std::string logName(const RunLogInput& run) {
  return run.logFile.filename().string();
}

// A run's MLM loss line (and its validation line in a darker shade of the same colour when
// `withEval`), added to `plot` under `label`; returns the provenance.
FigureProvenance addLossLines(widgets::CurvePlot& plot, const RunLogInput& run,
                              const std::string& label, const QColor& colour, bool withEval) {
  const auto train =
      requireScalar(run, kMlmLoss, "every AttnLab run log declares it; is this a run folder?");
  const QString trainName = q(label) + (withEval ? QStringLiteral(": training") : QString());
  plot.setSeries(trainName, toDoubles(train.steps), train.values);
  plot.setSeriesColour(trainName, colour);
  std::string source =
      logName(run) + ": scalar " + kMlmLoss + " (" + stepRangeText(train.steps) + ")";
  if (withEval && hasScalar(run, kEvalLoss)) {
    const auto eval = run.reader.scalar(kEvalLoss);
    if (!eval.steps.empty()) {
      const QString evalName = q(label) + QStringLiteral(": validation");
      plot.setSeries(evalName, toDoubles(eval.steps), eval.values);
      plot.setSeriesColour(evalName, colour.darker(170));
      source += ", scalar " + std::string(kEvalLoss) + " (" + stepRangeText(eval.steps) + ")";
    } else {
      source += "; no " + std::string(kEvalLoss) + " rows yet";
    }
  }
  return {run.runDir.string(), run.runName, stepRangeText(train.steps), source};
}

std::unique_ptr<widgets::CurvePlot> lossPlot(const FigureSpec& spec,
                                             const std::vector<std::string>& labels) {
  auto plot = std::make_unique<widgets::CurvePlot>();
  // A figure shows the values as logged; the per-pixel-column min/max thinning keeps every
  // spike, so no smoothing hides or shifts anything.
  plot->setSmoothing(0.0);
  plot->setYLabel(QStringLiteral("MLM loss"), QStringLiteral("nats"));
  plot->setTitle(q(spec.title) +
                 (labels.size() == 1 ? QStringLiteral(": ") + q(labels[0]) : QString()));
  return plot;
}

// The loss lines of every run in `runs` (its validation line too when `withEval`), a colour
// a run, under `lineLabels`; the title names the run where `titleLabels` holds just one.
Figure lossFigure(const FigureSpec& spec, const std::vector<RunLogInput>& runs,
                  const std::vector<std::string>& lineLabels,
                  const std::vector<std::string>& titleLabels, bool withEval) {
  auto plot = lossPlot(spec, titleLabels);
  Figure figure;
  figure.spec = &spec;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    figure.provenance.push_back(addLossLines(
        *plot, runs[i], lineLabels[i], plot->theme().seriesColour(static_cast<int>(i)), withEval));
  }
  plot->fitToData();
  figure.plot = std::move(plot);
  return figure;
}

// Where a complaint about a set of runs belongs: the run, or all of them.
std::string runsWhere(const std::vector<RunLogInput>& runs) {
  std::string where;
  for (const auto& r : runs) where += (where.empty() ? "" : ", ") + r.runDir.string();
  return where;
}

// The guidance patterns a guided run logs (guidance/<pattern>), e.g. "next, prev".
std::string guidancePatterns(const RunLogInput& run) {
  std::string patterns;
  for (const auto& name : run.reader.scalarNames()) {
    if (name.rfind("guidance/", 0) != 0 || name == kGuidanceLoss || name == "guidance/weight")
      continue;
    patterns += (patterns.empty() ? "" : ", ") + name.substr(9);
  }
  return patterns;
}

Figure layerSeriesFigure(const FigureSpec& spec, const FigureRequest& request,
                         const std::string& series, const std::string& whyAbsent,
                         const QString& quantity, const QString& unit) {
  const auto run = openRunLog(request.runs.front());
  const auto s = requireLayerSeries(run, series, whyAbsent);
  const int layers = static_cast<int>(s.innerShape[0]);
  const int n = static_cast<int>(s.steps.size());
  widgets::Matrix values(layers, n);
  for (int i = 0; i < n; ++i)
    for (int l = 0; l < layers; ++l)
      values.at(l, i) = s.values[static_cast<std::size_t>(i) * layers + l];
  QStringList labels;
  for (int l = 0; l < layers; ++l) labels << QStringLiteral("layer %1").arg(l);
  auto plot = std::make_unique<widgets::LayerSeriesPlot>();
  plot->setTitle(q(spec.title) + QStringLiteral(": ") + q(run.runName));
  plot->setSeries(quantity, unit, toDoubles(s.steps), values, labels);
  Figure figure;
  figure.spec = &spec;
  figure.plot = std::move(plot);
  figure.provenance.push_back(
      {run.runDir.string(), run.runName, stepRangeText(s.steps),
       logName(run) + ": series " + series + " [" + std::to_string(layers) + " layers]"});
  return figure;
}

}  // namespace

Figure lossCurves(const FigureSpec& spec, const FigureRequest& request) {
  const auto runs = openRuns(request);
  const auto labels = runLabels(runs);
  return lossFigure(spec, runs, labels, labels, true);
}

Figure guidanceFig3(const FigureSpec& spec, const FigureRequest& request) {
  const auto runs = openRuns(request);
  bool anyGuided = false;
  for (const auto& run : runs) anyGuided = anyGuided || hasScalar(run, kGuidanceLoss);
  if (!anyGuided) {
    throw FigureInputError(
        runsWhere(runs),
        std::string(runs.size() == 1 ? "the run did" : "none of the runs did") +
            " not use attention guidance (no " + kGuidanceLoss +
            " scalar in the log): the figure compares guided runs with unguided ones; train "
            "one with attention.guidance.enabled = true");
  }
  auto labels = runLabels(runs);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    labels[i] += hasScalar(runs[i], kGuidanceLoss) ? ": guided (" + guidancePatterns(runs[i]) + ")"
                                                   : ": unguided";
  }
  return lossFigure(spec, runs, labels, {}, false);
}

Figure asaFig5(const FigureSpec& spec, const FigureRequest& request) {
  return layerSeriesFigure(spec, request, "asa/mask_proportion",
                           "ASA was off in that run (attention.asa.enabled = false)",
                           QStringLiteral("masked share of real query-key cells"),
                           QStringLiteral("fraction"));
}

Figure sesameFig4(const FigureSpec& spec, const FigureRequest& request) {
  return layerSeriesFigure(spec, request, "squeeze/weights",
                           "SesameBERT's squeeze-and-excitation was off in that run "
                           "(attention.squeeze.enabled = false)",
                           QStringLiteral("layer weight s_l"),
                           QStringLiteral("sigmoid output, 0 to 1"));
}

}  // namespace attnlab::figures::makers
