#pragma once

#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>

#include <memory>
#include <utility>
#include <vector>

#include "widgets/plots/plot_widget.h"

class QCPGraph;

namespace attnlab::widgets {

/// What the horizontal axis of a curve shows.
enum class CurveXAxis {
  Step,          ///< optimiser step
  WallTime,      ///< wall-clock date and time (Unix seconds)
  RelativeTime,  ///< time since the run's first point (h:mm:ss)
};

/// Live scalar curves (loss, learning rate, ...), one series per run, overlaid with a legend.
/// Smoothing is TensorBoard's debiased EMA applied to the full-resolution data, before any
/// thinning, so a curve does not change shape with run length. The drawn line keeps, per
/// pixel column, the first, lowest, highest and last point (no spike disappears), and with
/// smoothing on, a faint band shows the raw minimum and maximum of each pixel column. Zoom
/// recomputes the thinning from the full data.
class CurvePlot : public PlotWidget {
  Q_OBJECT
 public:
  explicit CurvePlot(QWidget* parent = nullptr);
  ~CurvePlot() override;

  /// Replaces (or adds) the series of `run`. `steps` must not decrease; `wallSeconds` (Unix
  /// seconds, optional) feeds the time axes.
  void setSeries(const QString& run, std::vector<double> steps, std::vector<double> values,
                 std::vector<double> wallSeconds = {});
  /// Appends points to `run` (created if new): the live path. Only the new points are
  /// smoothed; the view follows the data until the user zooms or drags.
  void appendPoints(const QString& run, const std::vector<double>& steps,
                    const std::vector<double>& values, const std::vector<double>& wallSeconds = {});
  void removeSeries(const QString& run);
  void clear();
  QStringList runs() const;
  /// Number of full-resolution points held for `run`.
  std::size_t pointCount(const QString& run) const;
  /// Draws `run` in `colour` instead of the theme's palette (an app shows each run in the
  /// colour it has everywhere else). Kept when the series is replaced, removed and added
  /// again, or created later, and across theme changes; an invalid colour goes back to the
  /// palette.
  void setSeriesColour(const QString& run, const QColor& colour);
  /// The colour `run`'s line is drawn in (invalid when there is no such series).
  QColor seriesColour(const QString& run) const;

  /// EMA weight in [0, 1): 0 = raw data, 0.6 = TensorBoard's default, 0.99 = heavy.
  void setSmoothing(double weight);
  double smoothing() const { return m_smoothing; }
  void setXAxis(CurveXAxis axis);
  CurveXAxis xAxisKind() const { return m_xAxis; }
  void setLogY(bool on);
  bool logY() const { return m_logY; }
  /// The y-axis label as "<quantity> (<unit>)", e.g. "loss (nats)".
  void setYLabel(const QString& quantity, const QString& unit = {});
  /// Show the raw min/max band when smoothing is on (default true).
  void setShowEnvelope(bool on);
  /// The corner of the plot the legend sits in (default top right); a rising curve, like
  /// accuracy, is hidden less with the legend at the bottom.
  void setLegendAlignment(Qt::Alignment alignment);
  Qt::Alignment legendAlignment() const;

  /// Fits both axes to all data and follows new data again.
  void fitToData();
  /// The points of `run`'s drawn line after thinning (x in axis units), for tests.
  std::pair<std::vector<double>, std::vector<double>> displayedLine(const QString& run) const;
  /// The drawn raw band of `run` (x, lower, upper), empty when hidden, for tests.
  std::vector<std::vector<double>> displayedEnvelope(const QString& run) const;

 protected:
  void afterLayout() override;
  void applyThemeToContent() override;

 private:
  struct Series;
  Series* find(const QString& run) const;
  Series* findOrCreate(const QString& run);
  void resmooth(Series& s, std::size_t from);
  void updateTicker();
  void dataChanged();
  void rebuild();

  std::vector<std::unique_ptr<Series>> m_series;
  QHash<QString, QColor> m_fixedColours;
  double m_smoothing = 0.6;
  CurveXAxis m_xAxis = CurveXAxis::Step;
  bool m_logY = false;
  bool m_showEnvelope = true;
  bool m_follow = true;
  bool m_dirty = true;
  QString m_yQuantity = QStringLiteral("value");
  QString m_yUnit;
  // What the current thinning was computed for; a change of any of them recomputes it.
  double m_builtLo = 0, m_builtHi = 0;
  int m_builtColumns = 0;
};

}  // namespace attnlab::widgets
