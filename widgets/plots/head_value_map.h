#pragma once

#include <QPoint>
#include <QString>
#include <QVector>

#include <optional>
#include <utility>

#include "widgets/plots/plot_data.h"
#include "widgets/plots/plot_widget.h"

class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPItemText;

namespace attnlab::widgets {

/// One value per (layer, head) as a heatmap: layers down, heads across, a colour scale
/// (viridis; brighter = larger) labelled with the quantity and its unit, the values written
/// in the cells while they are large enough to read, NaN cells marked "n/a". A click on a
/// cell is the person asking for that head (headClicked); hovering names it (headHovered).
/// Heads can be marked (a frame in the theme's class-high colour: an alarm) and one selected
/// (a dashed frame). The Health tab's view of a per-head quantity at one step.
class HeadValueMap : public PlotWidget {
  Q_OBJECT
 public:
  explicit HeadValueMap(QWidget* parent = nullptr);

  /// rows = layers, cols = heads.
  void setValues(const Matrix& values);
  const Matrix& values() const { return m_values; }
  /// The quantity and unit on the colour scale ("minimum entropy (nats)").
  void setValueLabel(const QString& label);
  QString valueLabel() const;
  /// Fixes the colour range (e.g. over every logged step, so that colours keep their
  /// meaning along a step slider); nullopt: the finite values shown.
  void setValueRange(std::optional<std::pair<double, double>> range);
  std::pair<double, double> valueRange() const;
  /// Heads framed as marked (alarms); (layer, head) as QPoint(layer, head).
  void setMarkedHeads(const QVector<QPoint>& heads);
  QVector<QPoint> markedHeads() const { return m_marked; }
  /// Frames (layer, head) with a dashed line; (-1, -1) clears it.
  void setSelectedHead(int layer, int head);
  QPoint selectedHead() const { return m_selected; }

  /// The value drawn in (layer, head), read back from the colour map (NaN where "n/a").
  double drawnCell(int layer, int head) const;
  /// The text written in (layer, head)'s cell; empty when the cells are too small for text.
  QString cellText(int layer, int head) const;
  /// The centre of (layer, head)'s cell in customPlot() pixel coordinates (tests, tooltips);
  /// (-1, -1) without data or outside the matrix.
  QPoint cellCentre(int layer, int head) const;

 signals:
  /// A left click landed on (layer, head)'s cell.
  void headClicked(int layer, int head);
  /// The pointer is over (layer, head); (-1, -1) when it left the matrix.
  void headHovered(int layer, int head);

 protected:
  void applyThemeToContent() override;
  void afterLayout() override;

 private:
  void rebuild();
  void placeFrames();
  void updateCellTexts();
  /// (layer, head) under a pixel position, or (-1, -1).
  QPoint headAt(const QPoint& pixel) const;

  Matrix m_values;
  std::optional<std::pair<double, double>> m_fixedRange;
  QVector<QPoint> m_marked;
  QPoint m_selected{-1, -1};
  QPoint m_hovered{-1, -1};
  QCPColorMap* m_map = nullptr;
  QCPColorScale* m_scale = nullptr;
  QCPItemRect* m_selectedFrame = nullptr;
  QVector<QCPItemRect*> m_markFrames;
  QVector<QCPItemText*> m_texts;  ///< one per cell, row-major
};

}  // namespace attnlab::widgets
