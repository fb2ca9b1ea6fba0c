#pragma once

// The window's menu bar and Run toolbar: File, Run, View, Figures, Help. Each menu is built
// by its own function from the window's parts (MainWindow::parts()); the actions call the
// window's slots and its parts' (the training coordinator, the exports, the theme), so no
// menu needs a member function of its own in the window.

#include "app/gui/run_actions.h"

namespace attnlab::app {

class MainWindow;

/// Builds the menus and the toolbar of `window`; returns the Run menu's actions.
RunActions buildWindowMenus(MainWindow& window);

}  // namespace attnlab::app
