#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include "widgets/plots/plot_widget.h"

class QCPBars;

namespace attnlab::widgets {

/// One series of a grouped bar chart: a value per category (NaN: no bar).
struct BarSeries {
  QString name;
  QVector<double> values;
};

/// Grouped bars: categories along x (e.g. runs), one bar per series in each group (e.g.
/// "best head", "mean over heads"), with the value written above each bar and a legend. Used
/// for per-run tables drawn as figures (attention guidance's Table 8).
class BarChart : public PlotWidget {
  Q_OBJECT
 public:
  explicit BarChart(QWidget* parent = nullptr);

  /// Throws std::invalid_argument when a series does not have one value per category.
  void setBars(const QStringList& categories, const QVector<BarSeries>& series);
  void setValueLabel(const QString& label);
  /// The y range; by default [0, 1.1 * the largest value].
  void setValueRange(double lower, double upper);
  /// printf-like precision of the labels above the bars (default 3 decimals).
  void setLabelDecimals(int decimals);

  int categoryCount() const { return m_categories.size(); }
  int seriesCount() const { return m_series.size(); }
  /// The value drawn for (series, category).
  double value(int series, int category) const;

 protected:
  void applyThemeToContent() override;

 private:
  void rebuild();

  QStringList m_categories;
  QVector<BarSeries> m_series;
  QVector<QCPBars*> m_bars;
  QString m_valueLabel;
  int m_decimals = 3;
  bool m_fixedRange = false;
  double m_lower = 0, m_upper = 1;
};

}  // namespace attnlab::widgets
