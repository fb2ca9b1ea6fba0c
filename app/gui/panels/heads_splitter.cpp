#include "app/gui/panels/heads_splitter.h"

#include "widgets/plots/head_grid.h"

#include <QSplitter>

namespace attnlab::app {

QSplitter* newHeadsSplitter(QWidget* parent, const QString& gridName, widgets::HeadGrid*& grid,
                            const std::function<QWidget*(QWidget*)>& buildEnlarged) {
  auto* split = new QSplitter(Qt::Horizontal, parent);
  grid = new widgets::HeadGrid(split);
  grid->setObjectName(gridName);
  grid->setMinimumWidth(260);
  split->addWidget(grid);
  split->addWidget(buildEnlarged(split));
  // Even halves: the enlarged head needs the room for its token labels.
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({900, 1100});  // proportions; the splitter scales them to its width
  return split;
}

}  // namespace attnlab::app
