#pragma once

// The Inspect tab's logit lens (nostalgebraist 2020, for a masked language model: the MLM
// head read at every layer's output): rows = layers (and "output" for SesameBERT's combined
// output), columns = the text's tokens; each cell the layer's top prediction and its
// probability, coloured by that probability, in bold where it is the position's own token;
// its tooltip the top-K with probabilities and the own token's rank. Clicking a token's
// column header asks to mask that position (maskToggled): a masked column is marked and its
// cells add the rank of the token that was there.

#include "app/gui/inspection_controller.h"
#include "widgets/plots/theme.h"

#include <QWidget>

#include <optional>

class QLabel;
class QTableWidget;
class QTableWidgetItem;

namespace attnlab::app {

class LensPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LensPanel(QWidget* parent = nullptr);

  /// Shows `frame`'s lens (a note when the frame has none).
  void setFrame(const InspectionFrame& frame);
  void setTheme(const widgets::Theme& theme);
  QTableWidget* table() const { return m_table; }
  /// The text of a cell: the top piece, a line break, its probability (and, in a masked
  /// column, the own token's rank).
  static QString cellText(const LensFrame& lens, int row, int position, bool masked);
  /// The row's name: "layer i", or "output" for a combined output row.
  static QString rowName(const LensFrame& lens, int row);

 signals:
  /// A token's header was clicked: mask it, or unmask it when masked.
  void maskToggled(int position);

 private:
  void fill();
  QTableWidgetItem* newCell(int row, int position, bool masked) const;
  QString tooltip(int row, int position) const;
  QString header(int position) const;

  QLabel* m_caption = nullptr;
  QTableWidget* m_table = nullptr;
  widgets::Theme m_theme = widgets::Theme::light();
  std::optional<InspectionFrame> m_frame;
};

}  // namespace attnlab::app
