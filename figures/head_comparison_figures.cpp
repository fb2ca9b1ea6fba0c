// The figures of two runs' heads compared (head_comparison_figures.h) and their makers.
#include "figures/head_comparison_figures.h"

#include "analysis/report/head_comparison_report.h"
#include "analysis/report/report_layout.h"
#include "analysis/report/report_readers.h"
#include "figures/figure_catalog.h"
#include "figures/figure_errors.h"
#include "figures/figure_makers.h"
#include "figures/run_inputs.h"
#include "widgets/plots/matrix_heatmap.h"

#include <QString>
#include <QStringList>

#include <algorithm>
#include <regex>

namespace attnlab::figures {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

QString titleOf(const char* figure, const analysis::HeadComparison& r, const std::string& a,
                const std::string& b) {
  const FigureSpec* spec = findFigure(figure);
  return q(spec ? spec->title : figure) +
         QStringLiteral(": %1 (step %2) vs %3 (step %4), %5 tokens")
             .arg(q(a))
             .arg(r.a.source.step)
             .arg(q(b))
             .arg(r.b.source.step)
             .arg(std::string(figure) == "layer-cka" ? r.ckaTokens : r.tokens);
}

}  // namespace

void drawHeadMatching(widgets::MatrixHeatmap& plot, const analysis::HeadComparison& r,
                      const std::string& labelA, const std::string& labelB) {
  if (r.matching.empty())
    throw FigureInputError("heads_comparison.json", "the comparison has no head JSD");
  const int H = r.a.heads;
  QVector<widgets::HeatmapPanel> panels;
  for (int l = 0; l < r.a.layers; ++l) {
    const auto& m = r.matching[static_cast<std::size_t>(l)];
    widgets::HeatmapPanel p;
    QStringList pairs;
    for (int h = 0; h < H; ++h) pairs << QStringLiteral("%1>%2").arg(h).arg(m.match[h]);
    p.title = QStringLiteral("layer %1: matched %2, same index %3 bits; %4")
                  .arg(l)
                  .arg(m.meanMatched, 0, 'g', 3)
                  .arg(m.meanIdentity, 0, 'g', 3)
                  .arg(pairs.join(QLatin1Char(' ')));
    p.values = widgets::Matrix(H, H);
    for (int a = 0; a < H; ++a)
      for (int b = 0; b < H; ++b)
        p.values.at(a, b) =
            static_cast<float>(r.jsd[static_cast<std::size_t>((l * H + a) * H + b)]);
    panels << p;
  }
  plot.setAxisTitles(QStringLiteral("head of ") + q(labelB),
                     QStringLiteral("head of ") + q(labelA));
  plot.setValueLabel(QStringLiteral("mean JSD of the heads' attention rows (bits)"));
  plot.setValueRange(std::pair{0.0, 1.0});
  plot.setPanels(panels, std::min(4, r.a.layers));
  plot.setTitle(titleOf("heads-matching", r, labelA, labelB));
}

void drawLayerCka(widgets::MatrixHeatmap& plot, const analysis::HeadComparison& r,
                  const std::string& labelA, const std::string& labelB) {
  if (r.cka.empty()) throw FigureInputError("heads_comparison.json", "the comparison has no CKA");
  widgets::HeatmapPanel p;
  p.values = widgets::Matrix(r.a.layers + 1, r.b.layers + 1);
  for (int i = 0; i <= r.a.layers; ++i) {
    p.rowLabels << q(analysis::ckaRepresentationName(i));
    for (int j = 0; j <= r.b.layers; ++j)
      p.values.at(i, j) = static_cast<float>(analysis::ckaAt(r, i, j));
  }
  for (int j = 0; j <= r.b.layers; ++j) p.columnLabels << q(analysis::ckaRepresentationName(j));
  plot.setAxisTitles(q(labelB), q(labelA));
  plot.setValueLabel(QStringLiteral("linear CKA (1: the same up to rotation and scale)"));
  plot.setValueRange(std::pair{0.0, 1.0});
  plot.setPanels({p}, 1);
  plot.setTitle(titleOf("layer-cka", r, labelA, labelB));
}

}  // namespace attnlab::figures

namespace attnlab::figures::makers {
namespace {
namespace fs = std::filesystem;

/// The comparison report of run A against run B: of the folders the CLI and the app name
/// compare-step-SA-vs-<B>-step-SB, the one at `step` for A (any when empty), highest steps.
fs::path findComparison(const fs::path& a, const fs::path& b, std::optional<std::int64_t> step) {
  const auto probe = analysis::comparisonFolder(a, 0, b, 0).filename().string();
  const std::string bName =
      probe.substr(probe.find("-vs-") + 4, probe.rfind("-step-") - probe.find("-vs-") - 4);
  const std::regex name("compare-step-([0-9]+)-vs-(.+)-step-([0-9]+)");
  fs::path best;
  std::pair<long long, long long> bestSteps{-1, -1};
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(analysis::reportsFolder(a), ec)) {
    std::smatch m;
    const std::string folder = e.path().filename().string();
    if (!std::regex_match(folder, m, name) || m[2] != bName) continue;
    const std::pair<long long, long long> steps{std::stoll(m[1]), std::stoll(m[3])};
    if (step && steps.first != *step) continue;
    if (!fs::exists(e.path() / analysis::kHeadComparisonJson) || steps <= bestSteps) continue;
    best = e.path() / analysis::kHeadComparisonJson;
    bestSteps = steps;
  }
  if (best.empty())
    throw FigureInputError(a.string(), "no heads comparison with " + b.string() +
                                           " under analysis/; run `attnlab-cli compare " +
                                           a.string() + " " + b.string() +
                                           " --heads` (or Compare heads in the Compare tab)");
  return best;
}

template <typename Draw>
Figure comparisonFigure(const FigureSpec& spec, const FigureRequest& request, Draw draw) {
  const fs::path a = normaliseRunPath(request.runs.at(0)), b = normaliseRunPath(request.runs.at(1));
  const fs::path file = findComparison(a, b, request.step);
  const auto report = analysis::readHeadComparisonJson(file);
  std::vector<RunLogInput> logs;  // move-only: no initializer list
  logs.push_back(openRunLog(a));
  logs.push_back(openRunLog(b));
  const auto labels = runLabels(logs);
  auto plot = std::make_unique<widgets::MatrixHeatmap>();
  draw(*plot, report, labels[0], labels[1]);
  Figure figure;
  figure.spec = &spec;
  figure.plot = std::move(plot);
  const std::string source = file.lexically_relative(a).string();
  figure.provenance.push_back(
      {a.string(), labels[0], "checkpoint step " + std::to_string(report.a.source.step), source});
  figure.provenance.push_back(
      {b.string(), labels[1], "checkpoint step " + std::to_string(report.b.source.step), source});
  return figure;
}

}  // namespace

Figure headsMatching(const FigureSpec& spec, const FigureRequest& request) {
  return comparisonFigure(spec, request, &drawHeadMatching);
}

Figure layerCka(const FigureSpec& spec, const FigureRequest& request) {
  return comparisonFigure(spec, request, &drawLayerCka);
}

}  // namespace attnlab::figures::makers
