#pragma once

// What every tab of the window's centre is: a view of the runs selected in the sidebar, drawn
// in the app's theme, with a figure File > Export figure can write. The window keeps its tabs
// as a list of these and loops over them (MainWindow::showSelection, applyTheme,
// exportCurrentView), so a new tab is one class and one line (docs/app.md, "Adding a tab").

#include "widgets/plots/plot_export.h"

#include <QList>
#include <QString>

namespace attnlab::widgets {
struct Theme;
}

namespace attnlab::app {

class RunSession;

class RunView {
 public:
  virtual ~RunView() = default;

  /// The runs selected in the sidebar (the first is the current one); may be empty.
  virtual void setRuns(const QList<RunSession*>& runs) = 0;
  virtual void setTheme(const widgets::Theme& theme) = 0;
  /// Writes the view's figure to `path` (PNG, SVG or PDF by its suffix) at `options` where
  /// the view honours them. Returns the error, empty on success; an old file is kept on
  /// failure.
  virtual QString exportCurrentFigure(const QString& path,
                                      const widgets::ExportOptions& options) = 0;
};

}  // namespace attnlab::app
