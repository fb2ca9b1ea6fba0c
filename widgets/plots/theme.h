#pragma once

#include <QColor>
#include <QString>
#include <QVector>

#include "widgets/plots/colour_maps.h"

class QCustomPlot;

namespace attnlab::widgets {

/// The colours every plot draws with. Widgets take a Theme and never hard-code colours,
/// so a dark and a light appearance (and a print theme later) are one switch.
struct Theme {
  QString name;
  QColor background;       ///< figure and axis-rect background
  QColor foreground;       ///< text, axes, ticks
  QColor grid;             ///< major grid lines
  QColor subGrid;          ///< minor grid lines and separators
  QColor accent;           ///< selection, best-head marker, hover read-out frame
  QColor overlay;          ///< guidance-pattern overlay on heatmaps
  QVector<QColor> series;  ///< categorical palette (runs, baselines); cycles when exhausted
  QColor classLow;         ///< BLUE class of the violin colour code (low median)
  QColor classMid;         ///< YELLOW class
  QColor classHigh;        ///< RED class
  ColourMap colourMap = ColourMap::Viridis;  ///< default continuous map

  /// White background, dark text.
  static Theme light();
  /// Near-black background, light text; the palette is brightened for contrast.
  static Theme dark();

  /// The i-th categorical colour (wraps around).
  QColor seriesColour(int i) const;
};

/// Applies `theme` to everything currently in `plot`: backgrounds, every axis rect's axes
/// and grids, colour scales, legends and text elements. Call again after adding elements.
void applyTheme(QCustomPlot& plot, const Theme& theme);

}  // namespace attnlab::widgets
