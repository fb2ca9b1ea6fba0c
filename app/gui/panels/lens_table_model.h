#pragma once

// The logit lens of one frame as a table model: rows = the lens's rows (layers, then the
// combined output), columns = the text's positions. Cells are formatted when the view asks
// for them (only the visible ones are), so a 512-token lens of 13 rows costs nothing to show.

#include "app/gui/inspection_frame.h"
#include "widgets/plots/theme.h"

#include <QAbstractTableModel>

#include <optional>

namespace attnlab::app {

class LensTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;

  /// Shows `frame`'s lens (no rows when it has none).
  void setFrame(const InspectionFrame& frame);
  void setTheme(const widgets::Theme& theme);
  const std::optional<InspectionFrame>& frame() const { return m_frame; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  /// Display: the top piece, a line break, its probability (a masked column adds ", own rank
  /// N"); UserRole: the top piece; ToolTipRole: the top-K and the own token's rank;
  /// background shaded by the probability; bold where the top piece is the own token.
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  /// Columns: the position's own token ("[token]\nmasked" when masked, in bold); rows:
  /// "layer i" or "output".
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  static QString cellText(const LensFrame& lens, int row, int position, bool masked);
  static QString rowName(const LensFrame& lens, int row);

 private:
  QString tooltip(int row, int position) const;
  QString header(int position) const;
  bool masked(int position) const;

  std::optional<InspectionFrame> m_frame;
  widgets::Theme m_theme = widgets::Theme::light();
};

}  // namespace attnlab::app
