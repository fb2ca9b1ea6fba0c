#include "widgets/plots/theme.h"

#include <qcustomplot.h>

namespace attnlab::widgets {

Theme Theme::light() {
  Theme t;
  t.name = QStringLiteral("light");
  t.background = QColor(0xff, 0xff, 0xff);
  t.foreground = QColor(0x22, 0x22, 0x22);
  t.grid = QColor(0xdd, 0xdd, 0xdd);
  t.subGrid = QColor(0xee, 0xee, 0xee);
  t.accent = QColor(0xd6, 0x27, 0x28);
  t.overlay = QColor(0xff, 0xff, 0xff, 150);
  // Tableau 10: distinct hues of similar weight, readable on white.
  t.series = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
              QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
              QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f), QColor(0xbc, 0xbd, 0x22),
              QColor(0x17, 0xbe, 0xcf)};
  t.classLow = QColor(0x3b, 0x75, 0xc4);
  t.classMid = QColor(0xe8, 0xb9, 0x2c);
  t.classHigh = QColor(0xd1, 0x3b, 0x2f);
  return t;
}

Theme Theme::dark() {
  Theme t;
  t.name = QStringLiteral("dark");
  t.background = QColor(0x1e, 0x1f, 0x22);
  t.foreground = QColor(0xe0, 0xe0, 0xe0);
  t.grid = QColor(0x3a, 0x3c, 0x40);
  t.subGrid = QColor(0x2c, 0x2e, 0x32);
  t.accent = QColor(0xff, 0x6b, 0x6b);
  t.overlay = QColor(0xff, 0xff, 0xff, 130);
  // Brighter variants of the light palette: the dark background needs more luminance.
  t.series = {QColor(0x5d, 0xa5, 0xda), QColor(0xfa, 0xa4, 0x3a), QColor(0x60, 0xbd, 0x68),
              QColor(0xf1, 0x5a, 0x60), QColor(0xb2, 0x76, 0xb2), QColor(0xde, 0xcf, 0x3f),
              QColor(0xf1, 0x7c, 0xb0), QColor(0xb2, 0x91, 0x2f), QColor(0x4d, 0xd0, 0xe1),
              QColor(0xbd, 0xbd, 0xbd)};
  t.classLow = QColor(0x5d, 0x9c, 0xec);
  t.classMid = QColor(0xf0, 0xc6, 0x4a);
  t.classHigh = QColor(0xee, 0x5a, 0x4f);
  return t;
}

QColor Theme::seriesColour(int i) const {
  if (series.isEmpty()) return foreground;
  const int n = static_cast<int>(series.size());
  return series.at(((i % n) + n) % n);
}

namespace {

void themeAxis(QCPAxis* axis, const Theme& t) {
  axis->setBasePen(QPen(t.foreground, 1));
  axis->setTickPen(QPen(t.foreground, 1));
  axis->setSubTickPen(QPen(t.foreground, 1));
  axis->setTickLabelColor(t.foreground);
  axis->setLabelColor(t.foreground);
  if (QCPGrid* grid = axis->grid()) {
    grid->setPen(QPen(t.grid, 1, Qt::DotLine));
    grid->setSubGridPen(QPen(t.subGrid, 1, Qt::DotLine));
    grid->setZeroLinePen(Qt::NoPen);
  }
}

}  // namespace

void applyTheme(QCustomPlot& plot, const Theme& t) {
  plot.setBackground(QBrush(t.background));
  for (QCPAxisRect* rect : plot.axisRects()) {
    rect->setBackground(QBrush(t.background));
    for (QCPAxis* axis : rect->axes()) themeAxis(axis, t);
  }
  for (QCPLayoutElement* element : plot.plotLayout()->elements(true)) {
    if (auto* text = qobject_cast<QCPTextElement*>(element)) {
      text->setTextColor(t.foreground);
    } else if (auto* scale = qobject_cast<QCPColorScale*>(element)) {
      themeAxis(scale->axis(), t);
    } else if (auto* legend = qobject_cast<QCPLegend*>(element)) {
      // elements(true) reaches legends in axis-rect insets too (through the inset layout).
      legend->setBrush(QBrush(t.background));
      legend->setBorderPen(QPen(t.grid));
      legend->setTextColor(t.foreground);
      // Existing items keep the colour they were created with; set theirs as well.
      // A wrapped legend (more entries than a row holds) has empty cells: item(i) is null.
      for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* item = legend->item(i)) item->setTextColor(t.foreground);
    }
  }
}

}  // namespace attnlab::widgets
