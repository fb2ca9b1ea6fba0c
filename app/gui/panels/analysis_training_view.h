#pragma once

// Statistics over training: every head's median entropy and median JSD to the layer below
// against step (the training-statistics figure), and a step slider that moves a marker
// through the steps and redraws the violin grid with that step's per-head medians. The
// report keeps whole distributions only for its own checkpoint; over training it keeps
// medians, so the grid at other steps shows medians alone (a tick per head), and says so.
// Whole violins of another checkpoint are its own report (step-S in the Report box).

#include "app/gui/panels/analysis_view.h"

#include <cstdint>
#include <vector>

class QComboBox;
class QLabel;
class QSlider;

namespace attnlab::analysis {
struct TrainingStatisticsPoint;
}
namespace attnlab::widgets {
class ScatterPlot;
class ViolinGrid;
}  // namespace attnlab::widgets

namespace attnlab::app {

class AnalysisTrainingView : public AnalysisView {
  Q_OBJECT
 public:
  explicit AnalysisTrainingView(QWidget* parent = nullptr);

  void setReport(const ShownReport& shown) override;
  void setTheme(const widgets::Theme& theme) override;
  QString figureName() const override;
  widgets::PlotWidget* shownPlot() const override;
  /// The catalog figure draws the default source; another one is exported as shown.
  bool exportsCatalogFigure() const override;

  /// "snapshot" or "checkpoint" (trainingSources()); the report's default when empty.
  void setSource(const QString& source);
  QString source() const;
  /// Violins of the medians of entropy (false) or of the JSD to the layer below (true).
  void setAdjacentJsd(bool jsd);
  /// The steps the slider moves through (the report's over-training points of one source).
  std::vector<std::int64_t> steps() const;
  /// The step the slider is at (-1 without points).
  std::int64_t currentStep() const;
  QSlider* slider() const { return m_slider; }
  widgets::ScatterPlot* lines() const { return m_lines; }
  widgets::ViolinGrid* violins() const { return m_violins; }

 private:
  void showStep(int index);
  void redraw();

  QComboBox* m_sourceBox = nullptr;
  QLabel* m_stepLabel = nullptr;
  QSlider* m_slider = nullptr;
  widgets::ScatterPlot* m_lines = nullptr;
  widgets::ViolinGrid* m_violins = nullptr;
  QLabel* m_missing = nullptr;
  ShownReport m_shown;
  std::vector<const analysis::TrainingStatisticsPoint*> m_points;
  bool m_jsd = false;
  bool m_drawn = false;
};

}  // namespace attnlab::app
