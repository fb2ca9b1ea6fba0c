#pragma once

// The Curves and Variants tabs' plots: a scrolling grid of plot widgets, a fixed number of
// columns of equal width, filled row by row in the order given; a lone plot takes the whole
// width (one curve should not sit in half the tab). The grid lays the plots out; the tab
// makes them (under host()), titles them and deletes them.

#include <QList>
#include <QScrollArea>

class QGridLayout;

namespace attnlab::app {

class PlotGrid : public QScrollArea {
 public:
  explicit PlotGrid(int columns, QWidget* parent = nullptr);

  /// The parent of the plots laid out here.
  QWidget* host() const { return m_host; }
  int columns() const { return m_columns; }

  /// Lays out `plots` (children of host()) in this order, replacing the previous layout,
  /// and shows them. Plots left out stay where they are: delete them first.
  void setPlots(const QList<QWidget*>& plots);

 private:
  int m_columns;
  QWidget* m_host = nullptr;
  QGridLayout* m_grid = nullptr;
};

}  // namespace attnlab::app
