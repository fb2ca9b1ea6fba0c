#pragma once

// A report's optional summaries, one figure a view: the corpus summaries beyond the weights
// (figures/beyond_figures.h) and the heads' analysis (figures/pruning_figures.h):
//   Rollout         the rollout's spread from the diagonal, diagonal mass and entropy per layer
//   Norms           Pearson r of weights and norms per layer x head, with the mean ||f_h(x_j)||
//   Lens            the logit lens's accuracy, mean rank and KL to the output per layer, the
//                   first layer with half the output's accuracy marked
//   HeadImportance  Michel et al.'s importance and the single-head ablation per layer x head
//   Pruning         loss and accuracy against heads masked, by importance and at random
// A report analysed without the summary (--no-rollout, without --heads, ...) shows what to
// run instead.

#include "app/gui/panels/analysis_view.h"

class QLabel;
class QStackedLayout;

namespace attnlab::widgets {
class MatrixHeatmap;
class ScatterPlot;
}  // namespace attnlab::widgets

namespace attnlab::app {

class AnalysisBeyondView : public AnalysisView {
  Q_OBJECT
 public:
  enum class Kind { Rollout, Norms, Lens, HeadImportance, Pruning };

  explicit AnalysisBeyondView(Kind kind, QWidget* parent = nullptr);

  void setReport(const ShownReport& shown) override;
  void setTheme(const widgets::Theme& theme) override;
  QString figureName() const override;
  widgets::PlotWidget* shownPlot() const override;

  Kind kind() const { return m_kind; }
  /// Why nothing is drawn (the figure's message); empty while a plot is shown.
  QString missingText() const;

 private:
  void draw();

  Kind m_kind;
  QStackedLayout* m_stack = nullptr;
  QLabel* m_missing = nullptr;
  widgets::ScatterPlot* m_lines = nullptr;      // Rollout, Lens, Pruning
  widgets::MatrixHeatmap* m_heatmap = nullptr;  // Norms, HeadImportance
  ShownReport m_shown;
  bool m_drawn = false;
};

}  // namespace attnlab::app
