#pragma once

// The Attention and Inspect tabs show a run's heads the same way: the layer x head grid on the
// left, one head enlarged on the right, in even halves. One function, so the two tabs keep one
// layout.

#include <QString>

#include <functional>

class QSplitter;
class QWidget;

namespace attnlab::widgets {
class HeadGrid;
}

namespace attnlab::app {

/// A splitter in `parent`: a new layer x head grid named `gridName` (stored in `grid` before
/// `buildEnlarged` runs, so the enlarged side may use it) beside what `buildEnlarged` makes
/// in the splitter.
QSplitter* newHeadsSplitter(QWidget* parent, const QString& gridName, widgets::HeadGrid*& grid,
                            const std::function<QWidget*(QWidget*)>& buildEnlarged);

}  // namespace attnlab::app
