#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <QVector>

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "widgets/plots/plot_widget.h"

class QCPItemStraightLine;
class QCPItemText;

namespace attnlab::widgets {

/// One line of a StepTrendPlot: a value per step (NaN: no point there).
struct TrendLine {
  QString name;
  std::vector<double> values;  ///< one per step of the plot
  QColor colour;               ///< invalid: the theme's i-th series colour
  bool bold = false;           ///< drawn wider (a mean among its members, a selected head)
  bool dashed = false;
};

/// A step to point out on the plot: a vertical line across it with a short label on top.
struct TrendMarker {
  double step = 0;
  QString label;  ///< a word or two ("sink"); the plot drops labels when many markers crowd
  QColor colour;  ///< invalid: the theme's class-high colour (an alarm)
};

/// Several quantities over training steps on one axis: per-head or per-layer trends of an
/// attention-health quantity, sink rates per token class. Markers (vertical lines) point out
/// steps (alarms), a cursor marks the step shown elsewhere (a step slider), and a horizontal
/// reference line can show a threshold. Every line is redrawn from the data given (the
/// plot keeps no history of its own); the legend shows when the lines are few enough to
/// name.
class StepTrendPlot : public PlotWidget {
  Q_OBJECT
 public:
  explicit StepTrendPlot(QWidget* parent = nullptr);

  /// Replaces every line; `steps` increasing, each line's values as many as `steps`.
  void setLines(const std::vector<double>& steps, const QVector<TrendLine>& lines);
  void setMarkers(const QVector<TrendMarker>& markers);
  /// The step marked as shown (a thin line in the accent colour); NaN hides it.
  void setCursorStep(double step);
  /// A horizontal line at `value` named `label` (a threshold); nullopt removes it.
  void setReferenceLine(std::optional<double> value, const QString& label = {});
  /// The y-axis label as "<quantity> (<unit>)".
  void setYLabel(const QString& quantity, const QString& unit = {});
  QString yLabel() const;
  void setLogY(bool on);
  bool logY() const { return m_logY; }
  /// The legend is shown for at most this many lines (default 10), in as many columns as
  /// the plot's width holds.
  void setMaxLegendEntries(int n);
  /// Fixes the y range (a share: 0..1); nullopt: the data's.
  void setYRange(std::optional<std::pair<double, double>> range);

  int lineCount() const { return m_lines.size(); }
  QStringList lineNames() const;
  /// The values of the line called `name` as drawn (empty when there is none).
  std::vector<double> lineValues(const QString& name) const;
  const std::vector<double>& steps() const { return m_steps; }
  QVector<double> markerSteps() const;
  double cursorStep() const { return m_cursor; }
  bool legendShown() const;

 protected:
  void applyThemeToContent() override;
  void afterLayout() override;

 private:
  void rebuild();
  void placeMarkers();
  void placeCursor();
  void fitAxes();

  std::vector<double> m_steps;
  QVector<TrendLine> m_lines;
  QVector<TrendMarker> m_markers;
  double m_cursor = std::nan("");
  std::optional<double> m_reference;
  std::optional<std::pair<double, double>> m_yRange;
  QString m_referenceLabel;
  bool m_logY = false;
  int m_maxLegend = 10;
  QVector<QCPItemStraightLine*> m_markerLines;
  QVector<QCPItemText*> m_markerTexts;
  QCPItemStraightLine* m_cursorLine = nullptr;
  QCPItemStraightLine* m_referenceLine = nullptr;
  QCPItemText* m_referenceText = nullptr;
};

}  // namespace attnlab::widgets
