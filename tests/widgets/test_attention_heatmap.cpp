// The attention heatmap draws the matrix where it belongs, reads out cells under the
// pointer, thins crowded labels, supports a log scale and a guidance overlay, and exports.
#include "widgets/plots/attention_heatmap.h"

#include <qcustomplot.h>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/widgets/sample_data.h"
#include "tests/widgets/widget_test_support.h"

using namespace attnlab::widgets;

namespace {

double luminance(QRgb c) {
  return 0.2126 * qRed(c) + 0.7152 * qGreen(c) + 0.0722 * qBlue(c);
}

QPointF cellCentre(const AttentionHeatmap& w, int query, int key) {
  return {w.customPlot()->xAxis->coordToPixel(key), w.customPlot()->yAxis->coordToPixel(query)};
}

}  // namespace

class TestAttentionHeatmap : public QObject {
  Q_OBJECT
 private slots:
  void brightestCellIsWhereTheMaximumIs() {
    AttentionHeatmap w;
    w.resize(800, 600);
    Matrix m(16, 20, 0.01f);
    m.at(5, 9) = 1.0f;
    m.at(12, 2) = 0.3f;
    w.setMatrix(m);
    w.setTitle("Layer 0, head 0");
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    QVERIFY(testing::distinctColours(image) > 10);
    // Scan the matrix area for the brightest pixel and map it back to a cell.
    const QRect area = w.customPlot()->axisRect()->rect();
    QPoint best;
    double bestL = -1;
    for (int y = area.top() + 1; y < area.bottom(); ++y)
      for (int x = area.left() + 1; x < area.right(); ++x) {
        const double l = luminance(image.pixel(x, y));
        if (l > bestL) bestL = l, best = {x, y};
      }
    int q = -1, k = -1;
    QVERIFY(w.cellAt(best, &q, &k));
    QCOMPARE(q, 5);
    QCOMPARE(k, 9);
    // It is viridis' top colour (yellow), and a 0.01 cell is its bottom (dark purple).
    const QColor top = image.pixelColor(cellCentre(w, 5, 9).toPoint());
    QVERIFY2(top.red() > 230 && top.green() > 210 && top.blue() < 80, qPrintable(top.name()));
    const QColor low = image.pixelColor(cellCentre(w, 0, 0).toPoint());
    QVERIFY2(low.red() < 90 && low.green() < 40 && low.blue() > 60, qPrintable(low.name()));
  }

  void hoverReadsOutTokensAndValue() {
    AttentionHeatmap w;
    w.resize(800, 600);
    Matrix m(4, 5, 0.1f);
    m.at(2, 3) = 0.625f;
    w.setMatrix(m);
    w.setTokens({"<s>", "the", "cat", "</s>"}, {"<s>", "a", "dog", "sat", "</s>"});
    w.replotNow();
    QSignalSpy spy(&w, &AttentionHeatmap::cellHovered);
    // A real mouse move over the plot, as a user would make it.
    const QPointF at = cellCentre(w, 2, 3);
    QMouseEvent move(QEvent::MouseMove, at, w.customPlot()->mapToGlobal(at), Qt::NoButton,
                     Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(w.customPlot(), &move);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 2);
    QCOMPARE(spy.at(0).at(1).toInt(), 3);
    QCOMPARE(spy.at(0).at(2).toDouble(), 0.625);
    const QString text = w.readout();
    QVERIFY2(text.contains("cat") && text.contains("sat") && text.contains("0.625"),
             qPrintable(text));
    // Leaving the matrix hides the read-out.
    QVERIFY(w.hoverAt(QPointF(2, 2)).isEmpty());
    QVERIFY(w.readout().isEmpty());
  }

  void crowdedLabelsAreThinned() {
    AttentionHeatmap w;
    w.resize(900, 700);
    w.setMatrix(sample::mixedAttention(512));
    w.setTokens(sample::sentence(512));
    w.replotNow();
    QVERIFY2(w.keyLabelStep() >= 4, qPrintable(QString::number(w.keyLabelStep())));
    QVERIFY(w.queryLabelStep() >= 4);
    auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(w.customPlot()->xAxis->ticker());
    QVERIFY(ticker);
    QVERIFY(ticker->ticks().size() <= 512 / 4 + 1);
    w.setMatrix(sample::mixedAttention(12));
    w.setTokens(sample::sentence(12));
    w.replotNow();
    QCOMPARE(w.keyLabelStep(), 1);
    QCOMPARE(w.queryLabelStep(), 1);
  }

  void logScaleLiftsSmallValues() {
    AttentionHeatmap w;
    w.resize(600, 500);
    Matrix m(8, 8, 1e-6f);
    m.at(0, 0) = 1.0f;
    m.at(4, 4) = 1e-2f;
    w.setMatrix(m);
    w.replotNow();
    const double linear =
        luminance(w.renderImage(w.customPlot()->size()).pixel(cellCentre(w, 4, 4).toPoint()));
    w.setLogScale(true);
    QVERIFY(w.logScale());
    QCOMPARE(w.customPlot()->plottable(0)->property("dataScaleType").toInt(),
             int(QCPAxis::stLogarithmic));
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    const double logged = luminance(image.pixel(cellCentre(w, 4, 4).toPoint()));
    QVERIFY2(logged > linear + 40, qPrintable(QString("%1 vs %2").arg(logged).arg(linear)));
    // The floor cells (1e-6 < max/1e4) stay at the bottom colour; the top stays on top.
    QVERIFY(luminance(image.pixel(cellCentre(w, 0, 0).toPoint())) > logged);
    QVERIFY(luminance(image.pixel(cellCentre(w, 7, 1).toPoint())) < logged);
  }

  void guidanceOverlayMarksTargetCellsOnly() {
    AttentionHeatmap w;
    w.resize(600, 500);
    w.setMatrix(sample::attention(10, sample::HeadKind::Broad));
    w.replotNow();
    const QImage before = w.renderImage(w.customPlot()->size());
    w.setGuidance(sample::previousTokenPattern(10));
    w.replotNow();
    const QImage after = w.renderImage(w.customPlot()->size());
    const QPoint target = cellCentre(w, 5, 4).toPoint(), other = cellCentre(w, 5, 8).toPoint();
    QVERIFY(before.pixel(target) != after.pixel(target));
    QCOMPARE(before.pixel(other), after.pixel(other));
    QVERIFY(w.readout().isEmpty());
    QVERIFY(w.hoverAt(cellCentre(w, 5, 4)).contains("target 1"));
    w.setGuidanceVisible(false);
    w.replotNow();
    QCOMPARE(w.renderImage(w.customPlot()->size()).pixel(target), before.pixel(target));
  }

  // A sliding-window band of 2 keys either side on a 10 x 10 map: its edges run between key
  // q + 2 and q + 3 (above the diagonal) and between q - 3 and q - 2 (below), one vertical
  // step per query, and stop where they would meet the map's border; the pixels drawn on the
  // edge change, a cell's centre does not; the read-out says which cells lie outside.
  void bandFramesTheWindow() {
    AttentionHeatmap w;
    w.resize(600, 500);
    w.setMatrix(sample::attention(10, sample::HeadKind::Broad));
    w.replotNow();
    const QImage before = w.renderImage(w.customPlot()->size());
    w.setBand(2);
    QCOMPARE(w.bandHalfWidth(), 2);
    const QVector<QPointF> upper = w.bandEdge(true), lower = w.bandEdge(false);
    QCOMPARE(upper.size(), 14);  // queries 0..6: at query 7 the edge would be the border
    QCOMPARE(upper.front(), QPointF(2.5, -0.5));
    QCOMPARE(upper.back(), QPointF(8.5, 6.5));
    QCOMPARE(lower.size(), 14);  // queries 3..9
    QCOMPARE(lower.front(), QPointF(0.5, 2.5));
    w.replotNow();
    const QImage after = w.renderImage(w.customPlot()->size());
    const auto pixel = [&](double key, double query) {
      return QPointF(w.customPlot()->xAxis->coordToPixel(key),
                     w.customPlot()->yAxis->coordToPixel(query))
          .toPoint();
    };
    QVERIFY(before.pixel(pixel(2.5, 0.0)) != after.pixel(pixel(2.5, 0.0)));  // on the edge
    QCOMPARE(after.pixel(cellCentre(w, 0, 1).toPoint()),
             before.pixel(cellCentre(w, 0, 1).toPoint()));
    QVERIFY(w.hoverAt(cellCentre(w, 0, 3)).contains("outside the window"));
    QVERIFY(!w.hoverAt(cellCentre(w, 0, 2)).contains("outside the window"));
    w.setBand(-1);
    QVERIFY(w.bandEdge(true).isEmpty());
    QVERIFY(!w.hoverAt(cellCentre(w, 0, 3)).contains("outside the window"));
  }

  void exportsAllFormats() {
    AttentionHeatmap w;
    w.setMatrix(sample::mixedAttention(64));
    w.setTokens(sample::sentence(64));
    w.setTitle("Layer 3, head 7 attention");
    QTemporaryDir dir;
    const QString problem = testing::checkExports(w, dir.path(), "heatmap");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  void exportFailureIsReported() {
    AttentionHeatmap w;
    w.setMatrix(sample::mixedAttention(8));
    const ExportResult r = w.exportTo("/proc/attnlab-heatmap.png", ExportFormat::Png);
    QVERIFY(!r.ok);
    QVERIFY(r.error.contains("/proc/attnlab-heatmap.png"));
  }

  void darkThemeDarkensTheBackground() {
    AttentionHeatmap w;
    w.resize(600, 500);
    w.setMatrix(sample::mixedAttention(8));
    w.setTheme(Theme::dark());
    w.replotNow();
    const QImage image = w.renderImage(w.customPlot()->size());
    QVERIFY(luminance(image.pixel(3, 3)) < 60);
    w.setTheme(Theme::light());
    QVERIFY(luminance(w.renderImage(w.customPlot()->size()).pixel(3, 3)) > 200);
  }
};

QTEST_MAIN(TestAttentionHeatmap)
#include "test_attention_heatmap.moc"
