// bench_widgets: how fast the plot widgets redraw, offscreen, at 1200 x 900.
//   QT_QPA_PLATFORM=offscreen bench_widgets
// Prints the median of several runs for: a 512 x 512 heatmap data update plus replot, a
// 12 x 12 violin grid build from raw samples (the analysis' summaries included) plus replot,
// the same grid from ready summaries, and a replot of a curve of 1,000,000 points
// (re-thinning included). Targets: 30, 300, 300 and 50 ms. The last line names
// the widget furthest from (or closest to) its target: worst_widget=<name>:<ms>.
#include <qcustomplot.h>
#include <QApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "tests/widgets/sample_data.h"
#include "widgets/plots/attention_heatmap.h"
#include "widgets/plots/curve_plot.h"
#include "widgets/plots/violin_grid.h"

using namespace attnlab::widgets;

namespace {

double medianMs(int runs, const std::function<void(int)>& body) {
  body(-1);  // warm-up: first paint buffers, font caches
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    QElapsedTimer t;
    t.start();
    body(i);
    ms.push_back(t.nsecsElapsed() / 1e6);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void showAt(QWidget& w) {
  w.resize(1200, 900);
  w.show();
  QCoreApplication::processEvents();
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  struct Result {
    const char* name;
    double ms, target;
  };
  std::vector<Result> results;

  {
    AttentionHeatmap w;
    showAt(w);
    const Matrix a = sample::mixedAttention(512, 1), b = sample::mixedAttention(512, 2);
    w.setTokens(sample::sentence(512));
    const double ms = medianMs(21, [&](int i) {
      w.setMatrix(i % 2 ? a : b);
      w.replotNow();
    });
    results.push_back({"heatmap_512x512", ms, 30});
  }
  {
    // Raw samples: each head summarised by the analysis' streaming distribution (histogram,
    // quartiles, KDE), then drawn.
    ViolinGrid w;
    showAt(w);
    const auto samples = sample::entropySamples(12, 12, 1024);
    const double ms = medianMs(7, [&](int) {
      w.setSamples(12, 12, samples);
      w.replotNow();
    });
    results.push_back({"violin_grid_12x12", ms, 300});
    // An analysis result's summaries (the app's path): drawing only.
    const auto summaries = sample::summaries(samples, 0.0, std::log(128.0));
    const double drawMs = medianMs(7, [&](int) {
      w.setSummaries(12, 12, summaries);
      w.replotNow();
    });
    results.push_back({"violin_grid_12x12_summaries", drawMs, 300});
  }
  {
    CurvePlot w;
    showAt(w);
    const sample::Curve c = sample::lossCurve(1000000, 3, 2.5, 4e-6);
    QElapsedTimer t;
    t.start();
    w.setSeries("run", c.steps, c.values, c.wallSeconds);
    w.replotNow();
    std::printf("curve_1M_points_set_data_and_first_replot_ms=%.1f (EMA over all points)\n",
                t.nsecsElapsed() / 1e6);
    const QCPRange full = w.customPlot()->xAxis->range();
    // Alternate between two ranges so every replot re-thins the full million points.
    const double ms = medianMs(21, [&](int i) {
      w.customPlot()->xAxis->setRange(full.lower, full.upper - (i % 2) * 1.0);
      w.replotNow();
    });
    results.push_back({"curve_1M_points", ms, 50});
  }

  const Result* worst = &results.front();
  for (const Result& r : results) {
    std::printf("%s_ms=%.1f target=%.0f %s\n", r.name, r.ms, r.target,
                r.ms <= r.target ? "ok" : "SLOW");
    if (r.ms / r.target > worst->ms / worst->target) worst = &r;
  }
  std::printf("worst_widget=%s:%.1f\n", worst->name, worst->ms);
  return 0;
}
