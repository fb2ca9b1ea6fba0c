#pragma once

#include <QString>
#include <QVector>

#include "widgets/plots/plot_widget.h"

class QCPBars;

namespace attnlab::widgets {

/// One word of a sentence and the attention it receives.
struct WordBar {
  QString word;
  double value = 0.0;
  bool correct = false;  ///< one of the words that count as right (the antecedent)
  bool picked = false;   ///< the word the head attends to most
  bool query = false;    ///< the word whose attention row this is
};

/// One attention row over a sentence's words as bars, in word order: the correct words in
/// their own colour, the picked word outlined, the query word named under its bar.
class WordAttentionBars : public PlotWidget {
  Q_OBJECT
 public:
  explicit WordAttentionBars(QWidget* parent = nullptr);

  void setWords(const QVector<WordBar>& words);
  /// The quantity on the value axis (default "attention").
  void setValueLabel(const QString& label);
  const QVector<WordBar>& words() const { return m_words; }

 protected:
  void applyThemeToContent() override;

 private:
  void rebuild();

  QVector<WordBar> m_words;
  QCPBars* m_other = nullptr;
  QCPBars* m_correct = nullptr;
  QCPBars* m_picked = nullptr;
};

}  // namespace attnlab::widgets
