#pragma once

// The Inspect tab's logit lens (nostalgebraist 2020, for a masked language model: the MLM
// head read at every layer's output): rows = layers (and "output" for SesameBERT's combined
// output), columns = the text's tokens; each cell the layer's top prediction and its
// probability, shaded by that probability, in bold where it is the position's own token; its
// tooltip the top-K with probabilities and the own token's rank. Clicking a token's column
// header asks to mask that position (maskToggled): a masked column is marked and its cells
// add the rank of the token that was there. Cells are formatted only when drawn
// (LensTableModel), so a 512-token lens shows in a few milliseconds.

#include "app/gui/inspection_frame.h"
#include "widgets/plots/theme.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace attnlab::app {

class LensTableModel;

class LensPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LensPanel(QWidget* parent = nullptr);

  /// Shows `frame`'s lens (an empty table when the frame has none).
  void setFrame(const InspectionFrame& frame);
  void setTheme(const widgets::Theme& theme);
  QTableView* table() const { return m_table; }
  LensTableModel* model() const { return m_model; }

 signals:
  /// A token's header was clicked: mask it, or unmask it when masked.
  void maskToggled(int position);

 private:
  /// Each column as wide as its widest line (measured, not by asking every cell's size hint).
  void fitColumns();

  QLabel* m_caption = nullptr;
  QTableView* m_table = nullptr;
  LensTableModel* m_model = nullptr;
};

}  // namespace attnlab::app
