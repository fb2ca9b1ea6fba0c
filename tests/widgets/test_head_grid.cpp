// Head grid ("model view"): thumbnails where they belong, click and selector open a head.
#include "widgets/plots/head_grid.h"

#include <qcustomplot.h>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/widgets/sample_data.h"
#include "tests/widgets/widget_test_support.h"

using namespace attnlab::widgets;

namespace {

std::vector<Matrix> grid(int layers, int heads, int tokens) {
  std::vector<Matrix> out;
  for (int i = 0; i < layers * heads; ++i)
    out.push_back(sample::attention(tokens, sample::HeadKind(i % 4), i + 1));
  return out;
}

QPointF centreOf(const HeadGrid& w, int layer, int head) {
  // Slots are 1 + gap wide; the thumbnail fills [i * slot, i * slot + 1].
  const double slot = w.customPlot()->xAxis->range().size() > 0 ? 1.12 : 1.0;
  return {w.customPlot()->xAxis->coordToPixel(head * slot + 0.5),
          w.customPlot()->yAxis->coordToPixel(layer * slot + 0.5)};
}

}  // namespace

class TestHeadGrid : public QObject {
  Q_OBJECT
 private slots:
  void clickOpensTheHeadUnderThePointer() {
    HeadGrid w;
    w.resize(900, 700);
    w.setHeads(4, 6, grid(4, 6, 16));
    w.replotNow();
    QSignalSpy spy(&w, &HeadGrid::headActivated);
    const QPointF at = centreOf(w, 2, 5);
    QTest::mouseClick(w.customPlot(), Qt::LeftButton, Qt::NoModifier, at.toPoint());
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 2);
    QCOMPARE(spy.at(0).at(1).toInt(), 5);
    QCOMPARE(w.selectedLayer(), 2);
    QCOMPARE(w.selectedHead(), 5);
    // The selector followed the click.
    const auto boxes = w.findChildren<QSpinBox*>();
    QCOMPARE(boxes.size(), 2);
    QCOMPARE(boxes[0]->value(), 2);
    QCOMPARE(boxes[1]->value(), 5);
  }

  void selectorAndOpenButton() {
    HeadGrid w;
    w.setHeads(3, 3, grid(3, 3, 8));
    QSignalSpy spy(&w, &HeadGrid::headActivated);
    const auto boxes = w.findChildren<QSpinBox*>();
    boxes[0]->setValue(1);
    boxes[1]->setValue(2);
    QCOMPARE(w.selectedLayer(), 1);
    QCOMPARE(w.selectedHead(), 2);
    QCOMPARE(spy.count(), 0);  // selecting is not opening
    w.findChild<QPushButton*>()->click();
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 1);
    QCOMPARE(spy.at(0).at(1).toInt(), 2);
  }

  void thumbnailsShowTheirHeads() {
    HeadGrid w;
    w.resize(800, 600);
    // Layer 0 head 0: all attention on the first key (a bright left column).
    std::vector<Matrix> ms = grid(2, 2, 16);
    ms[0] = Matrix(16, 16, 0.0f);
    for (int q = 0; q < 16; ++q) ms[0].at(q, 0) = 1.0f;
    w.setHeads(2, 2, ms);
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    QVERIFY(testing::distinctColours(image) > 10);
    QCPAxis* x = w.customPlot()->xAxis;
    QCPAxis* y = w.customPlot()->yAxis;
    const QColor left = image.pixelColor(int(x->coordToPixel(0.03)), int(y->coordToPixel(0.5)));
    const QColor right = image.pixelColor(int(x->coordToPixel(0.9)), int(y->coordToPixel(0.5)));
    QVERIFY2(left.lightness() > right.lightness() + 80,
             qPrintable(left.name() + " " + right.name()));
    int l = -1, h = -1;
    QVERIFY(!w.headAt(QPointF(x->coordToPixel(1.06), y->coordToPixel(0.5)), &l, &h));  // gap
  }

  void largeHeadsAreDownsampledAndExport() {
    HeadGrid w;
    w.setHeads(2, 3, grid(2, 3, 256));
    QCOMPARE(w.thumbnailCells(), 64);
    w.setTitle("Model view");
    QTemporaryDir dir;
    const QString problem = testing::checkExports(w, dir.path(), "heads");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  // headThumbnails (made off the GUI thread by the Inspect tab) are block means: a 4 x 4 head
  // whose 2 x 2 blocks hold known values comes down to those block means, worked out by hand;
  // a null head is a 1 x 1 zero; setThumbnails draws them as setHeads would.
  void thumbnailsAreBlockMeans() {
    const std::vector<float> head = {1, 3, 0, 0,  //
                                     5, 7, 0, 8,  //
                                     2, 2, 1, 1,  //
                                     2, 2, 1, 1};
    const auto thumbs = headThumbnails({head.data(), nullptr}, 4, 4, 2);
    QCOMPARE(int(thumbs.size()), 2);
    QCOMPARE(thumbs[0].rows, 2);
    QCOMPARE(thumbs[0].cols, 2);
    QCOMPARE(thumbs[0].at(0, 0), 4.0f);  // (1 + 3 + 5 + 7) / 4
    QCOMPARE(thumbs[0].at(0, 1), 2.0f);  // (0 + 0 + 0 + 8) / 4
    QCOMPARE(thumbs[0].at(1, 0), 2.0f);
    QCOMPARE(thumbs[0].at(1, 1), 1.0f);
    QCOMPARE(thumbs[1].rows, 1);
    QCOMPARE(thumbs[1].at(0, 0), 0.0f);
    HeadGrid w;
    w.setThumbnailResolution(4);
    w.setThumbnails(1, 2, thumbs);
    QCOMPARE(w.layers(), 1);
    QCOMPARE(w.heads(), 2);
    QCOMPARE(w.thumbnailCells(), 2);
  }
};

QTEST_MAIN(TestHeadGrid)
#include "test_head_grid.moc"
