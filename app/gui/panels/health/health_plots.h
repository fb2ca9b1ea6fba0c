#pragma once

// The Health tab's plots, drawn from a run's health history: the layer x head heatmap of the
// chosen quantity at one step (with the hover read-out under it), that quantity's trend per
// head or per layer, the sink rate per token class, the massive-activation ratio per layer
// and rank collapse per layer, each against step with the alarms marked and the shown step
// as a cursor. No state of its own beyond the widgets: the tab says what to draw.

#include "app/gui/panels/health/health_alarms.h"
#include "app/gui/panels/health/health_data.h"
#include "widgets/plots/theme.h"

#include <QWidget>

#include <vector>

class QLabel;

namespace attnlab::widgets {
class HeadValueMap;
class StepTrendPlot;
}  // namespace attnlab::widgets

namespace attnlab::app {

/// What to draw.
struct HealthView {
  const core::HealthHistory* history = nullptr;
  HealthQuantity quantity = HealthQuantity::EntropyMin;
  int sinkClass = 0;
  bool perLayer = false;  ///< the trend: layer means instead of one line per head
  int row = 0;            ///< the step shown (a row of the history)
  const std::vector<HealthAlarm>* alarms = nullptr;
  HealthAlarmSettings thresholds;
};

class HealthPlots : public QWidget {
 public:
  explicit HealthPlots(QWidget* parent = nullptr);

  widgets::HeadValueMap* heatmap() const { return m_heatmap; }
  widgets::StepTrendPlot* trend() const { return m_trend; }
  widgets::StepTrendPlot* sinkRates() const { return m_sinkRates; }
  widgets::StepTrendPlot* massive() const { return m_massive; }
  widgets::StepTrendPlot* rank() const { return m_rank; }
  QLabel* hoverLabel() const { return m_hover; }

  void setTheme(const widgets::Theme& theme);
  /// Every plot (new rows, another quantity, other alarms).
  void drawAll(const HealthView& view);
  /// The heatmap and the cursors only (the step moved).
  void drawStep(const HealthView& view);
  /// The read-out under the heatmap for (layer, head) at the shown step; (-1, -1): the hint.
  void showHover(const HealthView& view, int layer, int head);

 private:
  void drawTrend(const HealthView& view);
  void drawSinkRates(const HealthView& view);
  void drawMassive(const HealthView& view);
  void drawRank(const HealthView& view);

  widgets::HeadValueMap* m_heatmap = nullptr;
  QLabel* m_hover = nullptr;
  widgets::StepTrendPlot* m_trend = nullptr;
  widgets::StepTrendPlot* m_sinkRates = nullptr;
  widgets::StepTrendPlot* m_massive = nullptr;
  widgets::StepTrendPlot* m_rank = nullptr;
  widgets::Theme m_theme = widgets::Theme::light();
};

}  // namespace attnlab::app
