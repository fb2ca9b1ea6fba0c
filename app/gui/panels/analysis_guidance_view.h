#pragma once

// Guidance conformity: per layer x head, the mean total-variation distance of the head's
// attention rows to each attention-guidance pattern (next, prev, first, separator, period;
// Deshpande & Narasimhan 2020). All five patterns side by side (the guidance-conformity
// figure) or one chosen in a combo; "n/a" where a pattern never applied.

#include "app/gui/panels/analysis_view.h"

#include <optional>

class QComboBox;

namespace attnlab::widgets {
class MatrixHeatmap;
}

namespace attnlab::app {

class AnalysisGuidanceView : public AnalysisView {
  Q_OBJECT
 public:
  explicit AnalysisGuidanceView(QWidget* parent = nullptr);

  void setReport(const ShownReport& shown) override;
  void setTheme(const widgets::Theme& theme) override;
  QString figureName() const override;
  widgets::PlotWidget* shownPlot() const override;
  bool exportsCatalogFigure() const override { return !pattern(); }

  /// nullopt: all five patterns; else the index into kGuidancePatterns.
  void setPattern(std::optional<int> pattern);
  std::optional<int> pattern() const;
  widgets::MatrixHeatmap* heatmap() const { return m_heatmap; }

 private:
  void redraw();

  QComboBox* m_patternBox = nullptr;
  widgets::MatrixHeatmap* m_heatmap = nullptr;
  ShownReport m_shown;
  bool m_drawn = false;
};

}  // namespace attnlab::app
