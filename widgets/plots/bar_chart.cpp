#include "widgets/plots/bar_chart.h"

#include <qcustomplot.h>

#include <cmath>
#include <stdexcept>

namespace attnlab::widgets {

BarChart::BarChart(QWidget* parent) : PlotWidget(parent) {
  m_plot->legend->setVisible(true);
  m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
}

void BarChart::setBars(const QStringList& categories, const QVector<BarSeries>& series) {
  for (const auto& s : series) {
    if (s.values.size() != categories.size())
      throw std::invalid_argument("BarChart: series \"" + s.name.toStdString() + "\" has " +
                                  std::to_string(s.values.size()) + " values for " +
                                  std::to_string(categories.size()) + " categories");
  }
  m_categories = categories;
  m_series = series;
  rebuild();
}

void BarChart::setValueLabel(const QString& label) {
  m_valueLabel = label;
  m_plot->yAxis->setLabel(label);
  requestReplot();
}

void BarChart::setValueRange(double lower, double upper) {
  m_fixedRange = true;
  m_lower = lower;
  m_upper = upper;
  rebuild();
}

void BarChart::setLabelDecimals(int decimals) {
  m_decimals = decimals;
  rebuild();
}

double BarChart::value(int series, int category) const {
  return m_series.at(series).values.at(category);
}

void BarChart::rebuild() {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_bars.clear();
  const int groups = m_categories.size();
  const int n = m_series.size();
  auto* group = new QCPBarsGroup(m_plot);
  // Spacing in plot coordinates, so a bar's centre (where its label goes) is known exactly.
  constexpr double kGap = 0.02;
  group->setSpacingType(QCPBarsGroup::stPlotCoords);
  group->setSpacing(kGap);
  const double width = n > 0 ? 0.8 / n : 0.8;
  double top = 0;
  for (int s = 0; s < n; ++s) {
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setName(m_series[s].name);
    bars->setWidth(width);
    bars->setBarsGroup(group);
    QVector<double> keys, values;
    for (int c = 0; c < groups; ++c) {
      const double v = m_series[s].values[c];
      if (!std::isfinite(v)) continue;
      keys << c;
      values << v;
      top = std::max(top, v);
    }
    bars->setData(keys, values, true);
    m_bars << bars;
  }
  // The value above each bar: a table drawn as a figure must still be readable as a table.
  for (int s = 0; s < n; ++s) {
    for (int c = 0; c < groups; ++c) {
      const double v = m_series[s].values[c];
      if (!std::isfinite(v)) continue;
      auto* label = new QCPItemText(m_plot);
      label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
      label->position->setType(QCPItemPosition::ptPlotCoords);
      label->position->setCoords(c + (s - (n - 1) / 2.0) * (width + kGap), v);
      label->setText(QString::number(v, 'f', m_decimals));
      label->setClipToAxisRect(false);
      label->setProperty("barSeries", s);
      label->setProperty("barCategory", c);
    }
  }
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int c = 0; c < groups; ++c) ticker->addTick(c, m_categories[c]);
  m_plot->xAxis->setTicker(ticker);
  m_plot->xAxis->setSubTicks(false);
  m_plot->xAxis->grid()->setVisible(false);
  m_plot->xAxis->setRange(-0.6, std::max(0, groups - 1) + 0.6);
  if (m_fixedRange)
    m_plot->yAxis->setRange(m_lower, m_upper);
  else
    m_plot->yAxis->setRange(0, top > 0 ? top * 1.15 : 1.0);
  m_plot->yAxis->setLabel(m_valueLabel);
  applyThemeToContent();
  requestReplot();
}

void BarChart::applyThemeToContent() {
  for (int s = 0; s < m_bars.size(); ++s) {
    const QColor c = m_theme.seriesColour(s);
    m_bars[s]->setPen(QPen(c.darker(120)));
    m_bars[s]->setBrush(c);
  }
  for (int i = 0; i < m_plot->itemCount(); ++i) {
    if (auto* text = qobject_cast<QCPItemText*>(m_plot->item(i)))
      text->setColor(m_theme.foreground);
  }
}

}  // namespace attnlab::widgets
