#pragma once

// Hovering an attention heatmap's cell as a person does: the mouse over a pixel that shows it.

#include "widgets/plots/attention_heatmap.h"
#include "widgets/plots/head_grid.h"

#include <QPointF>
#include <QTest>

namespace attnlab::tests {

/// Moves the mouse over the map's cell (query, key); false when no pixel shows it.
inline bool hoverCell(widgets::AttentionHeatmap* map, int query, int key) {
  for (int y = 0; y < map->height(); y += 2)
    for (int x = 0; x < map->width(); x += 2) {
      int q = -1, k = -1;
      if (map->cellAt(QPointF(x, y), &q, &k) && q == query && k == key) {
        QTest::mouseMove(map, QPoint(x, y));
        return true;
      }
    }
  return false;
}

/// A pixel of the grid's plot over (layer, head); (-1, -1) when none shows it.
inline QPoint pixelOfHead(widgets::HeadGrid* grid, int layer, int head) {
  QWidget* canvas = grid->customPlot();
  for (int y = 0; y < canvas->height(); y += 2)
    for (int x = 0; x < canvas->width(); x += 2) {
      int l = -1, h = -1;
      if (grid->headAt(QPointF(x, y), &l, &h) && l == layer && h == head) return {x, y};
    }
  return {-1, -1};
}

/// Clicks (layer, head) in the grid as a person does; false when no pixel shows it.
inline bool clickHead(widgets::HeadGrid* grid, int layer, int head) {
  const QPoint at = pixelOfHead(grid, layer, head);
  if (at.x() < 0) return false;
  QTest::mouseClick(grid->customPlot(), Qt::LeftButton, {}, at);
  return true;
}

}  // namespace attnlab::tests
