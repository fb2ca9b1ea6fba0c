// Colour maps are the published perceptually uniform ones; themes restyle any plot.
#include "widgets/plots/colour_maps.h"
#include "widgets/plots/theme.h"

#include <qcustomplot.h>
#include <QtTest>

using namespace attnlab::widgets;

namespace {
QColor at(ColourMap map, double t) {
  return QColor::fromRgb(colourGradient(map).color(t, QCPRange(0, 1)));
}
}  // namespace

class TestTheme : public QObject {
  Q_OBJECT
 private slots:
  void mapsHaveEnoughStopsAndTheirEndColours() {
    for (ColourMap m : {ColourMap::Viridis, ColourMap::Magma, ColourMap::Cividis, ColourMap::Greys})
      QVERIFY(colourStopCount(m) >= 16);
    // viridis: #440154 .. #fde725; magma: #000004 .. #fcfdbf; cividis: #00224e .. #fee838
    QCOMPARE(at(ColourMap::Viridis, 0).name(), QString("#440154"));
    QCOMPARE(at(ColourMap::Viridis, 1).name(), QString("#fde725"));
    QCOMPARE(at(ColourMap::Magma, 0).name(), QString("#000004"));
    QCOMPARE(at(ColourMap::Magma, 1).name(), QString("#fcfdbf"));
    QCOMPARE(at(ColourMap::Cividis, 0).name(), QString("#00224e"));
    QCOMPARE(at(ColourMap::Cividis, 1).name(), QString("#fee838"));
  }

  void lightnessRisesMonotonically() {
    for (ColourMap m :
         {ColourMap::Viridis, ColourMap::Magma, ColourMap::Cividis, ColourMap::Greys}) {
      double previous = -1;
      for (int i = 0; i <= 50; ++i) {
        const QColor c = at(m, i / 50.0);
        const double luma = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
        QVERIFY2(luma >= previous - 0.01, qPrintable(colourMapName(m)));
        previous = luma;
      }
    }
  }

  void namesParse() {
    ColourMap m;
    QVERIFY(parseColourMap("Magma", &m) && m == ColourMap::Magma);
    QVERIFY(!parseColourMap("jet", &m));
    QCOMPARE(colourMapNames().size(), 4);
  }

  void themesRestyleAPlot() {
    QCustomPlot plot;
    plot.legend->setVisible(true);
    plot.addGraph()->setName("a");
    applyTheme(plot, Theme::dark());
    QVERIFY(plot.toPixmap(50, 50).toImage().pixelColor(1, 1).lightness() < 60);
    QVERIFY(plot.xAxis->tickLabelColor().lightness() > 180);
    QVERIFY(plot.legend->item(0)->textColor().lightness() > 180);
    applyTheme(plot, Theme::light());
    QVERIFY(plot.toPixmap(50, 50).toImage().pixelColor(1, 1).lightness() > 240);
    QVERIFY(plot.xAxis->labelColor().lightness() < 80);
    QVERIFY(Theme::light().series.size() >= 8);
    QCOMPARE(Theme::dark().seriesColour(10), Theme::dark().seriesColour(0));
  }
};

QTEST_MAIN(TestTheme)
#include "test_theme.moc"
