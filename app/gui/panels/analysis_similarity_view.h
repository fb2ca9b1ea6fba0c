#pragma once

// Head similarity: the all-pairs head JSD of the report as a matrix (head-jsd-matrix) or as
// Clark et al.'s 2-D map of the heads by classical MDS (head-jsd-mds), chosen in a combo.
// A report made with --pairwise 0 has no such matrix: the view says so and how to get one.

#include "analysis/attention/head_embedding.h"
#include "app/gui/panels/analysis_view.h"

class QComboBox;
class QLabel;
class QStackedLayout;

namespace attnlab::widgets {
class MatrixHeatmap;
class ScatterPlot;
}  // namespace attnlab::widgets

namespace attnlab::app {

class AnalysisSimilarityView : public AnalysisView {
  Q_OBJECT
 public:
  explicit AnalysisSimilarityView(QWidget* parent = nullptr);

  void setReport(const ShownReport& shown) override;
  void setTheme(const widgets::Theme& theme) override;
  QString figureName() const override;
  widgets::PlotWidget* shownPlot() const override;

  /// 0: the matrix, 1: the MDS map.
  void setDisplay(int index);
  widgets::MatrixHeatmap* matrix() const { return m_matrix; }
  widgets::ScatterPlot* embedding() const { return m_embedding; }
  /// The MDS drawn (empty until the map was shown for a report with pairwise JSD).
  const analysis::HeadEmbedding& headEmbedding() const { return m_mds; }
  /// The text shown instead of the plots when the report has no pairwise JSD (else empty).
  QString missingText() const;

 private:
  void drawEmbedding();

  QComboBox* m_display = nullptr;
  QStackedLayout* m_stack = nullptr;
  QLabel* m_missing = nullptr;
  widgets::MatrixHeatmap* m_matrix = nullptr;
  widgets::ScatterPlot* m_embedding = nullptr;
  analysis::HeadEmbedding m_mds;
  ShownReport m_shown;
  bool m_hasPairs = false;
  bool m_embeddingStale = true;
};

}  // namespace attnlab::app
