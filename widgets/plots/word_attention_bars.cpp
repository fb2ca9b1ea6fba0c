#include "widgets/plots/word_attention_bars.h"

#include <qcustomplot.h>

#include <algorithm>

namespace attnlab::widgets {

WordAttentionBars::WordAttentionBars(QWidget* parent) : PlotWidget(parent) {
  m_plot->yAxis->setLabel(tr("attention"));
  m_plot->xAxis->grid()->setVisible(false);
  m_other = new QCPBars(m_plot->xAxis, m_plot->yAxis);
  m_other->setName(tr("other words"));
  m_correct = new QCPBars(m_plot->xAxis, m_plot->yAxis);
  m_correct->setName(tr("antecedent (right answers)"));
  // Drawn over the others with no fill: an outline that shows which bar the head picked,
  // whatever its colour.
  m_picked = new QCPBars(m_plot->xAxis, m_plot->yAxis);
  m_picked->setName(tr("picked (argmax)"));
  for (QCPBars* b : {m_other, m_correct, m_picked}) b->setWidth(0.7);
  // The legend is one line below the bars: inside, it would cover the tallest one.
  m_plot->axisRect()->insetLayout()->take(m_plot->legend);
  m_plot->plotLayout()->addElement(2, 0, m_plot->legend);
  m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
  m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  m_plot->legend->setVisible(true);
  setTheme(m_theme);
}

void WordAttentionBars::setWords(const QVector<WordBar>& words) {
  m_words = words;
  rebuild();
}

void WordAttentionBars::setValueLabel(const QString& label) {
  m_plot->yAxis->setLabel(label);
  requestReplot();
}

void WordAttentionBars::rebuild() {
  QVector<double> otherKeys, otherValues, correctKeys, correctValues, pickedKeys, pickedValues;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  double top = 0.0;
  for (int i = 0; i < m_words.size(); ++i) {
    const WordBar& w = m_words[i];
    (w.correct ? correctKeys : otherKeys) << i;
    (w.correct ? correctValues : otherValues) << w.value;
    if (w.picked) pickedKeys << i, pickedValues << w.value;
    top = std::max(top, w.value);
    ticker->addTick(i, w.query ? w.word + QStringLiteral("\n(query)") : w.word);
  }
  m_other->setData(otherKeys, otherValues, true);
  m_correct->setData(correctKeys, correctValues, true);
  m_picked->setData(pickedKeys, pickedValues, true);
  m_plot->xAxis->setTicker(ticker);
  // Long sentences (CoNLL windows) turn their labels so they do not overlap.
  m_plot->xAxis->setTickLabelRotation(m_words.size() > 14 ? -60.0 : 0.0);
  m_plot->xAxis->setRange(-0.6, std::max(0, static_cast<int>(m_words.size()) - 1) + 0.6);
  m_plot->yAxis->setRange(0.0, top > 0.0 ? top * 1.1 : 1.0);
  applyTheme(*m_plot, m_theme);
  applyThemeToContent();
  requestReplot();
}

void WordAttentionBars::applyThemeToContent() {
  QColor other = m_theme.subGrid;
  other.setAlpha(230);
  m_other->setBrush(other.isValid() ? other : QColor(Qt::gray));
  m_other->setPen(Qt::NoPen);
  m_correct->setBrush(m_theme.seriesColour(2));
  m_correct->setPen(Qt::NoPen);
  m_picked->setBrush(Qt::NoBrush);
  m_picked->setPen(QPen(m_theme.accent, 3.0));
}

}  // namespace attnlab::widgets
