#pragma once

// Clicking one of the main window's centre tabs by its title, as a person does, and opening a
// run on one, in the tests that drive the real MainWindow.

#include "app/gui/main_window.h"
#include "app/gui/view_tabs.h"

#include <QTabBar>
#include <QtTest>

namespace attnlab::tests {

/// Clicks the tab titled `text` in `window`'s tab bar; fails the test when it is not then
/// the current tab.
inline void clickTab(app::MainWindow& window, const QString& text) {
  QTabBar* bar = window.parts().views->tabBar();
  for (int i = 0; i < bar->count(); ++i)
    if (bar->tabText(i) == text)
      QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(i).center());
  QCOMPARE(window.parts().views->tabText(window.parts().views->currentIndex()), text);
}

/// Shows `window`, opens `run` (a run or model folder) and clicks the tab titled `tab`.
inline void openOnTab(app::MainWindow& window, const QString& run, const QString& tab) {
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QVERIFY(window.openRun(run) != nullptr);
  clickTab(window, tab);
}

}  // namespace attnlab::tests
