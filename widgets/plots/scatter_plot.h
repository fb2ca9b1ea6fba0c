#pragma once

#include <QColor>
#include <QString>
#include <QVector>

#include <functional>
#include <optional>

#include "widgets/plots/plot_widget.h"

class QCPAxisRect;
class QCPGraph;

namespace attnlab::widgets {

/// One set of points of a panel: a legend entry, one colour.
struct XySeries {
  QString name;  ///< legend text; empty: not in the legend
  QVector<double> x, y;
  QColor colour;         ///< invalid: the theme's categorical colour of the series' index
  bool markers = true;   ///< a disc per point
  bool lines = false;    ///< joins the points in the order given
  double opacity = 1.0;  ///< < 1 for faint context (e.g. single heads behind a mean)
  bool inLegend = true;  ///< false: left out even with a name (the same key in every panel)
};

/// One panel: its own axes, labels with units, series and an optional vertical marker.
struct XyPanel {
  QString title;  ///< drawn above the panel
  QString xLabel, yLabel;
  QVector<XySeries> series;
  bool integerX = false;         ///< ticks at whole numbers only (layers)
  bool equalAspect = false;      ///< one unit is as long on both axes (embeddings)
  std::optional<double> marker;  ///< a vertical line at this x (a selected step)
};

/// Points and lines in one or more panels laid out in a grid (Clark et al.'s per-layer
/// scatter, an MDS embedding, statistics over steps). Draws what it is given.
class ScatterPlot : public PlotWidget {
  Q_OBJECT
 public:
  explicit ScatterPlot(QWidget* parent = nullptr);

  /// Replaces every panel; `columns` panels per row.
  void setPanels(const QVector<XyPanel>& panels, int columns = 1);
  /// Moves every panel's vertical marker to `x` (nullopt hides it) without a rebuild.
  void setMarker(std::optional<double> x);

  int panelCount() const { return static_cast<int>(m_panels.size()); }
  const XyPanel& panel(int i) const { return m_panels[i]; }
  QCPAxisRect* panelRect(int i) const;
  /// The plotted graph of series `s` of panel `p` (tests read its data).
  QCPGraph* graph(int p, int s) const;
  /// The vertical marker line of panel `p` (hidden when the panel has no marker).
  QCPGraph* markerGraph(int p) const {
    return p >= 0 && p < m_markers.size() ? m_markers[p] : nullptr;
  }

  /// The point drawn nearest to `plotPixel` (a pixel of customPlot()) within `radius` pixels,
  /// in the panel under it: its panel, its series and its index in that series' x and y
  /// (series without markers are not points). The later series wins a tie, as it is drawn
  /// on top. False when no point is that near.
  bool pointAt(const QPointF& plotPixel, int* panel, int* series, int* index,
               double radius = 8.0) const;
  /// What hovering a point shows as its tooltip (plain text): `text(panel, series, index)`;
  /// empty text or no provider shows none. Hovering emits pointHovered either way.
  void setHoverText(std::function<QString(int panel, int series, int index)> text);
  /// The tooltip text of the last mouse move over the plot; empty when it was over no point.
  QString hoverText() const { return m_hoverText; }
  /// Hovers `plotPixel` as a mouse move there does; returns the tooltip text.
  QString hoverAt(const QPointF& plotPixel, const QPoint& globalPos);

  /// The colour of layer `layer` of `layers` along the viridis map (shared so every
  /// "coloured by layer" figure agrees).
  static QColor layerColour(int layer, int layers);

 signals:
  /// The mouse is over point `index` of series `series` of panel `panel` (see pointAt).
  void pointHovered(int panel, int series, int index);

 protected:
  void applyThemeToContent() override;
  void afterLayout() override;

 private:
  void rebuild();

  QVector<XyPanel> m_panels;
  int m_columns = 1;
  QVector<QCPAxisRect*> m_rects;
  QVector<QVector<QCPGraph*>> m_graphs;
  QVector<QCPGraph*> m_markers;
  std::function<QString(int, int, int)> m_hoverTextOf;
  QString m_hoverText;
};

}  // namespace attnlab::widgets
