// The pieces the Curves, Variants and Attention tabs share: PlaceholderStack (the line of
// text shown in the content's place until there is something to draw) and PlotGrid (plots in
// a fixed number of equal columns, row by row, a lone plot across the whole width).
#include "app/gui/panels/placeholder_stack.h"
#include "app/gui/panels/plot_grid.h"

#include <QLabel>
#include <QtTest>

#include <cstdlib>
#include <vector>

using namespace attnlab::app;

namespace {

std::vector<QWidget*> makePlots(PlotGrid& grid, int count) {
  std::vector<QWidget*> plots;
  for (int i = 0; i < count; ++i) {
    auto* plot = new QWidget(grid.host());
    plot->setMinimumHeight(100);
    plots.push_back(plot);
  }
  return plots;
}

QList<QWidget*> listOf(const std::vector<QWidget*>& plots) {
  return QList<QWidget*>(plots.begin(), plots.end());
}

}  // namespace

class TestPlotGrid : public QObject {
  Q_OBJECT
 private slots:
  void placeholderUntilContent() {
    PlaceholderStack page(QStringLiteral("testPlaceholder"));
    auto* content = new QLabel(QStringLiteral("plots"));
    page.setContent(content);
    QCOMPARE(content->parentWidget(), &page);
    page.resize(400, 300);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    // The placeholder is what a new stack shows, found by its name.
    auto* placeholder = page.findChild<QLabel*>(QStringLiteral("testPlaceholder"));
    QCOMPARE(placeholder, page.placeholder());
    QVERIFY(placeholder->isVisible());
    QVERIFY(!content->isVisible());
    QVERIFY(!page.showsContent());
    page.showPlaceholder(QStringLiteral("Select a run"));
    QCOMPARE(placeholder->text(), QStringLiteral("Select a run"));
    QVERIFY(placeholder->wordWrap());
    page.showContent();
    QVERIFY(page.showsContent());
    QVERIFY(content->isVisible());
    QVERIFY(!placeholder->isVisible());
    page.showPlaceholder(QStringLiteral("No values yet"));
    QVERIFY(placeholder->isVisible());
    QVERIFY(!content->isVisible());
    QCOMPARE(placeholder->text(), QStringLiteral("No values yet"));
  }

  void plotsFillRowsOfEqualColumns() {
    PlotGrid grid(2);
    QCOMPARE(grid.columns(), 2);
    grid.resize(600, 800);
    const std::vector<QWidget*> plots = makePlots(grid, 3);
    grid.setPlots(listOf(plots));
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    const QRect a = plots[0]->geometry(), b = plots[1]->geometry(), c = plots[2]->geometry();
    QVERIFY(plots[2]->isVisible());
    QCOMPARE(a.top(), b.top());
    QVERIFY(b.left() > a.right());
    QVERIFY(std::abs(a.width() - b.width()) <= 1);
    QCOMPARE(c.left(), a.left());
    QCOMPARE(c.width(), a.width());
    QVERIFY(c.top() > a.bottom());

    // Laid out again in another order: the order given is the reading order.
    grid.setPlots({plots[2], plots[0]});
    delete plots[1];
    QTRY_COMPARE(plots[2]->geometry().top(), plots[0]->geometry().top());
    QVERIFY(plots[0]->geometry().left() > plots[2]->geometry().right());
  }

  void aLonePlotTakesTheWidth() {
    PlotGrid grid(2);
    grid.resize(600, 400);
    const std::vector<QWidget*> plots = makePlots(grid, 1);
    grid.setPlots(listOf(plots));
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    QCOMPARE(plots[0]->width(), grid.host()->width());
    // Three columns: a row holds three.
    PlotGrid wide(3);
    wide.resize(900, 400);
    const std::vector<QWidget*> row = makePlots(wide, 4);
    wide.setPlots(listOf(row));
    wide.show();
    QVERIFY(QTest::qWaitForWindowExposed(&wide));
    QCOMPARE(row[2]->geometry().top(), row[0]->geometry().top());
    QCOMPARE(row[3]->geometry().left(), row[0]->geometry().left());
    QVERIFY(row[3]->geometry().top() > row[0]->geometry().bottom());
  }
};

QTEST_MAIN(TestPlotGrid)
#include "test_plot_grid.moc"
