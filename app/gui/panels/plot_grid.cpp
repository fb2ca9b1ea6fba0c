#include "app/gui/panels/plot_grid.h"

#include <QGridLayout>

#include <algorithm>

namespace attnlab::app {

PlotGrid::PlotGrid(int columns, QWidget* parent)
    : QScrollArea(parent), m_columns(std::max(1, columns)) {
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
  m_host = new QWidget(this);
  m_grid = new QGridLayout(m_host);
  m_grid->setContentsMargins(0, 0, 0, 0);
  m_grid->setSpacing(6);
  for (int c = 0; c < m_columns; ++c) m_grid->setColumnStretch(c, 1);
  setWidget(m_host);
}

void PlotGrid::setPlots(const QList<QWidget*>& plots) {
  while (m_grid->count() > 0) delete m_grid->takeAt(0);  // the items, not the plots
  const int span = plots.size() == 1 ? m_columns : 1;
  for (int i = 0; i < plots.size(); ++i) {
    m_grid->addWidget(plots[i], i / m_columns, i % m_columns, 1, span);
    plots[i]->show();
  }
}

}  // namespace attnlab::app
