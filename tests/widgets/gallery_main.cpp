// attnlab-widget-gallery: renders every plot widget with realistic generated data to
// PNG (default: docs/figures/widgets/<name>.png) for the documentation.
//   QT_QPA_PLATFORM=offscreen attnlab-widget-gallery [output-folder]
#include <QApplication>
#include <QDir>

#include <cmath>
#include <cstdio>
#include <functional>

#include "tests/widgets/sample_data.h"
#include "widgets/plots/attention_heatmap.h"
#include "widgets/plots/comparison_plot.h"
#include "widgets/plots/curve_plot.h"
#include "widgets/plots/head_grid.h"
#include "widgets/plots/layer_series_plot.h"
#include "widgets/plots/probe_matrix_plot.h"
#include "widgets/plots/violin_grid.h"

using namespace attnlab::widgets;

namespace {

bool save(PlotWidget& w, const QString& dir, const QString& name, QSize size) {
  ExportOptions o;
  o.widthPx = size.width();
  o.heightPx = size.height();
  o.dpi = 96;
  const QString path = QDir(dir).filePath(name + ".png");
  const ExportResult r = w.exportTo(path, ExportFormat::Png, o);
  std::printf("%s %s\n", r.ok ? "wrote" : "FAILED", qPrintable(r.ok ? path : r.error));
  return r.ok;
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  const QString dir = argc > 1 ? QString::fromLocal8Bit(argv[1])
                               : QStringLiteral(ATTNLAB_SOURCE_DIR "/docs/figures/widgets");
  QDir().mkpath(dir);
  bool ok = true;

  {
    AttentionHeatmap w;
    const int t = 24;
    w.setMatrix(sample::mixedAttention(t));
    w.setTokens(sample::sentence(t));
    w.setTitle("Attention, layer 2 head 5 (previous-token head)");
    ok &= save(w, dir, "attention_heatmap", {900, 760});
    w.setGuidance(sample::previousTokenPattern(t));
    w.setTitle("Attention with the previous-token guidance target overlaid");
    ok &= save(w, dir, "attention_heatmap_guidance", {900, 760});
  }
  {
    AttentionHeatmap w;
    const int t = 512;
    w.setMatrix(sample::mixedAttention(t));
    w.setTokens(sample::sentence(t));
    w.setLogScale(true);
    w.setTheme(Theme::dark());
    w.setTitle("512 x 512, log colour scale, dark theme");
    ok &= save(w, dir, "attention_heatmap_512_log_dark", {900, 760});
  }
  {
    // Summaries as the analysis emits them (sequences of 128 tokens: entropy in [0, ln 128]);
    // colours and head order come from the analysis' functions.
    ViolinGrid w;
    w.setScale(ViolinScale::entropyNats());
    w.setSummaries(12, 12,
                   sample::summaries(sample::entropySamples(12, 12, 1024), 0.0, std::log(128.0)));
    w.setTitle("Attention entropy per head (12 layers x 12 heads)");
    ok &= save(w, dir, "violin_entropy", {1200, 1500});
  }
  {
    ViolinGrid w;
    w.setScale(ViolinScale::jsdBits());
    QStringList rows;
    for (int l = 0; l < 11; ++l) rows << QStringLiteral("L%1-L%2").arg(l).arg(l + 1);
    w.setRowLabels(rows);
    w.setSummaries(11, 12, sample::summaries(sample::jsdSamples(11, 12, 512), 0.0, 1.0));
    w.setTitle("Adjacent-layer Jensen-Shannon divergence");
    ok &= save(w, dir, "violin_jsd", {1200, 1400});
  }
  {
    CurvePlot w;
    const sample::Curve a = sample::lossCurve(20000, 11), b = sample::lossCurve(20000, 12, 2.2);
    w.setSeries("baseline", a.steps, a.values, a.wallSeconds);
    w.setSeries("realformer", b.steps, b.values, b.wallSeconds);
    w.setSmoothing(0.6);
    w.setYLabel("MLM loss", "nats");
    w.setTitle("Training loss, two runs (EMA 0.6, min/max band per pixel)");
    ok &= save(w, dir, "curves", {1000, 600});
    w.setLogY(true);
    w.setXAxis(CurveXAxis::RelativeTime);
    w.setTheme(Theme::dark());
    w.setTitle("Same runs: log y, time since start, dark theme");
    ok &= save(w, dir, "curves_log_time_dark", {1000, 600});
  }
  {
    HeadGrid w;
    const int layers = 6, heads = 8, t = 32;
    std::vector<Matrix> ms;
    const sample::HeadKind kinds[] = {sample::HeadKind::Diagonal, sample::HeadKind::PreviousToken,
                                      sample::HeadKind::FirstToken, sample::HeadKind::Broad};
    for (int l = 0; l < layers; ++l)
      for (int h = 0; h < heads; ++h)
        ms.push_back(sample::attention(t, kinds[(l * 3 + h * 7) % 4], 100 + l * heads + h));
    w.setHeads(layers, heads, ms);
    w.setSelected(2, 5);
    w.setTitle("Model view: 6 layers x 8 heads (click a head to open it)");
    ok &= save(w, dir, "head_grid", {1000, 800});
  }
  {
    LayerSeriesPlot w;
    std::vector<double> steps;
    const Matrix m = sample::maskingProportion(12, 200, &steps);
    w.setSeries("ASA masking proportion", "fraction of cells", steps, m);
    w.setTitle("ASA masking proportion per layer");
    ok &= save(w, dir, "layer_series_lines", {1000, 600});
    w.setView(LayerSeriesView::Heatmap);
    w.setTitle("ASA masking proportion, layer x step");
    ok &= save(w, dir, "layer_series_heatmap", {1000, 600});
  }
  {
    ProbeMatrixPlot w;
    w.setAccuracies(sample::probeAccuracy(12, 12));
    w.setBaselines({{"nearest antecedent", 0.38}, {"same head word", 0.52}, {"random", 0.11}});
    w.setTitle("Coreference probe: accuracy per head");
    ok &= save(w, dir, "probe_matrix", {1100, 650});
  }
  {
    ComparisonPlot w;
    const int t = 20;
    const Matrix a = sample::attention(t, sample::HeadKind::Broad, 3);
    const Matrix b = sample::mixedAttention(t, 4);
    w.setMatrices(a, "baseline: layer 4 head 2", b, "RealFormer: layer 4 head 2",
                  sample::sentence(t), sample::sentence(t));
    w.setTitle("Same head, two runs, shared colour scale");
    ok &= save(w, dir, "comparison", {1200, 620});
  }
  return ok ? 0 : 1;
}
