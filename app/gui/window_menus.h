#pragma once

// The window's menu bar and Run toolbar: File, Run, View, Figures, Help. Each menu is built
// by its own function from the window's parts (MainWindow::parts()); the actions call the
// window's slots and its parts' (the training coordinator, the exports, the theme), so no
// menu needs a member function of its own in the window.

class QAction;

namespace attnlab::app {

class MainWindow;
class RunSession;
class TrainingCoordinator;

/// The Run menu's actions, which follow the training state and the run selected.
struct RunActions {
  QAction* pause = nullptr;
  QAction* resume = nullptr;
  QAction* stop = nullptr;
  QAction* checkpoint = nullptr;

  /// Enables them by what the back-end training now offers and by the run selected (a
  /// stopped, incomplete or failed run that is not training can be resumed).
  void update(const TrainingCoordinator& training, const RunSession* selected) const;
};

/// Builds the menus and the toolbar of `window`; returns the Run menu's actions.
RunActions buildWindowMenus(MainWindow& window);

}  // namespace attnlab::app
