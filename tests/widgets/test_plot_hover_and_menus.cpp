// ScatterPlot names the point under the mouse: pointAt finds the nearest point within the
// radius (the later series on a tie, as drawn on top), a mouse move over a point emits
// pointHovered and shows the provider's text as a tooltip (escaped, so "<s>" shows as written),
// and a move over empty space shows none. HeadGrid turns a right click over a head into
// headContextMenuRequested (not between heads), and claims the click (handlesContextMenuAt)
// only while someone listens.
#include "widgets/plots/head_grid.h"
#include "widgets/plots/scatter_plot.h"

#include <qcustomplot.h>
#include <QContextMenuEvent>
#include <QSignalSpy>
#include <QToolTip>
#include <QtTest>

#include "tests/widgets/sample_data.h"

using namespace attnlab::widgets;

namespace {

XySeries points(const QString& name, const QVector<double>& x, const QVector<double>& y) {
  XySeries s;
  s.name = name;
  s.x = x;
  s.y = y;
  return s;
}

/// Panel 0: series "a" at (0,0), (1,1), (2,2); series "b" at (2,2) (on top of a's last) and
/// (0,2). Panel 1: series "a" at (1,0).
QVector<XyPanel> samplePanels() {
  XyPanel first;
  first.xLabel = QStringLiteral("x");
  first.yLabel = QStringLiteral("y");
  first.series = {points("a", {0, 1, 2}, {0, 1, 2}), points("b", {2, 0}, {2, 2})};
  XyPanel second = first;
  second.series = {points("a", {1}, {0})};
  return {first, second};
}

QPoint pixelOf(const ScatterPlot& plot, int panel, double x, double y) {
  QCPAxisRect* rect = plot.panelRect(panel);
  return QPointF(rect->axis(QCPAxis::atBottom)->coordToPixel(x),
                 rect->axis(QCPAxis::atLeft)->coordToPixel(y))
      .toPoint();
}

QPointF headCentre(const HeadGrid& grid, int layer, int head) {
  const double slot = 1.12;  // a thumbnail and its gap
  return {grid.customPlot()->xAxis->coordToPixel(head * slot + 0.5),
          grid.customPlot()->yAxis->coordToPixel(layer * slot + 0.5)};
}

}  // namespace

class TestPlotHoverAndMenus : public QObject {
  Q_OBJECT
 private slots:
  void pointAtFindsTheNearestDrawnPoint() {
    ScatterPlot plot;
    plot.resize(800, 400);
    plot.setPanels(samplePanels(), 2);
    plot.replotNow();
    int p = -1, s = -1, i = -1;
    QVERIFY(plot.pointAt(pixelOf(plot, 0, 1, 1), &p, &s, &i));
    QCOMPARE(QList<int>({p, s, i}), QList<int>({0, 0, 1}));
    // Two points at one place: the one drawn on top (series b).
    QVERIFY(plot.pointAt(pixelOf(plot, 0, 2, 2), &p, &s, &i));
    QCOMPARE(QList<int>({p, s, i}), QList<int>({0, 1, 0}));
    // Three pixels off is still that point; the other panel has its own.
    QVERIFY(plot.pointAt(pixelOf(plot, 0, 0, 2) + QPoint(3, 0), &p, &s, &i));
    QCOMPARE(QList<int>({p, s, i}), QList<int>({0, 1, 1}));
    QVERIFY(plot.pointAt(pixelOf(plot, 1, 1, 0), &p, &s, &i));
    QCOMPARE(QList<int>({p, s, i}), QList<int>({1, 0, 0}));
    // Half-way between (0,0) and (1,1) in panel 0 is far from both.
    QVERIFY(!plot.pointAt(pixelOf(plot, 0, 0.5, 0.5) + QPoint(0, 30), &p, &s, &i));
  }

  void hoverShowsTheProvidersText() {
    ScatterPlot plot;
    plot.resize(800, 400);
    plot.setPanels(samplePanels(), 2);
    plot.setHoverText([](int panel, int series, int index) {
      return QStringLiteral("<s> %1/%2/%3").arg(panel).arg(series).arg(index);
    });
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.replotNow();
    QSignalSpy hovered(&plot, &ScatterPlot::pointHovered);
    QTest::mouseMove(plot.customPlot(), pixelOf(plot, 0, 1, 1));
    QTRY_COMPARE(hovered.count(), 1);
    QCOMPARE(hovered.at(0), QVariantList({0, 0, 1}));
    QCOMPARE(plot.hoverText(), QStringLiteral("<s> 0/0/1"));
    QTRY_VERIFY2(QToolTip::text().contains(QStringLiteral("&lt;s&gt; 0/0/1")),
                 qPrintable(QToolTip::text()));
    // Over empty space: no text, no tooltip, no signal.
    QTest::mouseMove(plot.customPlot(), pixelOf(plot, 0, 0.5, 0.5) + QPoint(0, 30));
    QTRY_VERIFY(plot.hoverText().isEmpty());
    QCOMPARE(hovered.count(), 1);
    QTRY_VERIFY(!QToolTip::isVisible());
  }

  void headGridAsksForAHeadsMenu() {
    HeadGrid grid;
    grid.resize(700, 500);
    std::vector<Matrix> heads;
    for (int i = 0; i < 6; ++i) heads.push_back(sample::attention(8, sample::HeadKind(i % 4), i));
    grid.setHeads(2, 3, heads);
    grid.show();
    QVERIFY(QTest::qWaitForWindowExposed(&grid));
    grid.replotNow();
    QWidget* canvas = grid.customPlot();
    const QPoint over = headCentre(grid, 1, 2).toPoint();
    const QPoint gap =
        QPointF(grid.customPlot()->xAxis->coordToPixel(1.06), headCentre(grid, 1, 2).y()).toPoint();
    // Nobody listens yet: the app's menu for every plot keeps the click.
    QVERIFY(!grid.handlesContextMenuAt(canvas->mapToGlobal(over)));
    QSignalSpy asked(&grid, &HeadGrid::headContextMenuRequested);
    QVERIFY(grid.handlesContextMenuAt(canvas->mapToGlobal(over)));
    QVERIFY(!grid.handlesContextMenuAt(canvas->mapToGlobal(gap)));
    for (const QPoint at : {gap, over}) {
      QContextMenuEvent event(QContextMenuEvent::Mouse, at, canvas->mapToGlobal(at));
      QApplication::sendEvent(canvas, &event);
    }
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.at(0).at(0).toInt(), 1);
    QCOMPARE(asked.at(0).at(1).toInt(), 2);
    QCOMPARE(asked.at(0).at(2).toPoint(), canvas->mapToGlobal(over));
    QCOMPARE(grid.selectedLayer(), 0);  // a right click does not select
  }
};

QTEST_MAIN(TestPlotHoverAndMenus)
#include "test_plot_hover_and_menus.moc"
