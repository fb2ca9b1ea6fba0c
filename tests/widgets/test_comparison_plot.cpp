// Comparison: two panels on one shared colour scale.
#include "widgets/plots/comparison_plot.h"

#include <qcustomplot.h>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/widgets/sample_data.h"
#include "tests/widgets/widget_test_support.h"

using namespace attnlab::widgets;

class TestComparisonPlot : public QObject {
  Q_OBJECT
 private slots:
  void equalValuesGetEqualColours() {
    ComparisonPlot w;
    w.resize(1000, 500);
    Matrix a(6, 6, 0.1f), b(6, 6, 0.1f);
    a.at(1, 1) = 0.5f;  // left peaks at 0.5,
    b.at(1, 1) = 0.5f;
    b.at(4, 4) = 1.0f;  // right at 1.0: the shared range is [0.1, 1]
    w.setMatrices(a, "run A", b, "run B");
    QCOMPARE(w.sharedRange().lower, double(0.1f));
    QCOMPARE(w.sharedRange().upper, 1.0);
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    auto at = [&](int side, int r, int c) {
      QCPAxisRect* p = w.panel(side);
      return image.pixel(int(p->axis(QCPAxis::atBottom)->coordToPixel(c)),
                         int(p->axis(QCPAxis::atLeft)->coordToPixel(r)));
    };
    QCOMPARE(at(0, 1, 1), at(1, 1, 1));  // 0.5 looks the same in both panels
    QVERIFY(at(1, 4, 4) != at(1, 1, 1));
    QVERIFY(at(0, 1, 1) != at(0, 0, 0));
  }

  void logScaleAndExport() {
    ComparisonPlot w;
    w.setMatrices(sample::attention(16, sample::HeadKind::Broad), "baseline",
                  sample::mixedAttention(16), "RealFormer", sample::sentence(16),
                  sample::sentence(16));
    w.setLogScale(true);
    QVERIFY(w.sharedRange().lower > 0);
    w.setTitle("Layer 4 head 2: baseline vs RealFormer");
    QTemporaryDir dir;
    const QString problem = testing::checkExports(w, dir.path(), "compare");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(testing::readAll(dir.filePath("compare.svg")).contains("RealFormer"));
  }
};

QTEST_MAIN(TestComparisonPlot)
#include "test_comparison_plot.moc"
