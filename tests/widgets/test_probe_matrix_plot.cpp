// Probe matrix: best head found and framed, baselines in the legend, export.
#include "widgets/plots/probe_matrix_plot.h"

#include <qcustomplot.h>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/widgets/sample_data.h"
#include "tests/widgets/widget_test_support.h"

using namespace attnlab::widgets;

class TestProbeMatrixPlot : public QObject {
  Q_OBJECT
 private slots:
  void bestHeadIsMarkedOnTheImage() {
    ProbeMatrixPlot w;
    w.resize(1000, 600);
    Matrix acc(6, 8, 0.2f);
    acc.at(4, 3) = 0.81f;
    w.setAccuracies(acc);
    w.setBaselines({{"random", 0.1}, {"nearest", 0.4}});
    QCOMPARE(w.bestHead(), QPoint(4, 3));
    QCOMPARE(w.bestAccuracy(), double(0.81f));
    QCOMPARE(w.customPlot()->legend->itemCount(), 3);  // bars + two baselines
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    QCPAxis* x = w.customPlot()->xAxis;
    QCPAxis* y = w.customPlot()->yAxis;
    // The best cell is the brightest; its frame edge is in the accent colour.
    const QColor best = image.pixelColor(int(x->coordToPixel(3)), int(y->coordToPixel(4)));
    const QColor other = image.pixelColor(int(x->coordToPixel(1)), int(y->coordToPixel(1)));
    QVERIFY2(best.green() > other.green() + 80, qPrintable(best.name() + other.name()));
    const QColor edge = image.pixelColor(int(x->coordToPixel(2.5)), int(y->coordToPixel(4)));
    QVERIFY2(edge.red() > 180 && edge.green() < 90, qPrintable(edge.name()));
  }

  void exportsWithBaselineNames() {
    ProbeMatrixPlot w;
    w.setAccuracies(sample::probeAccuracy(12, 12));
    w.setBaselines({{"nearest antecedent", 0.38}, {"random", 0.11}});
    w.setTitle("Coreference probe");
    QTemporaryDir dir;
    const QString problem = testing::checkExports(w, dir.path(), "probe");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    const QByteArray svg = testing::readAll(dir.filePath("probe.svg"));
    QVERIFY(svg.contains("nearest antecedent"));
    QVERIFY(svg.contains("best: layer"));
  }
};

QTEST_MAIN(TestProbeMatrixPlot)
#include "test_probe_matrix_plot.moc"
