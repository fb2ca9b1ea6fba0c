#pragma once

// Shared checks for widget tests: an image is not blank, and a plot exports valid PNG, SVG
// (XML with the title in it) and PDF files.

#include <QDir>
#include <QFile>
#include <QImage>
#include <QSet>
#include <QString>
#include <QXmlStreamReader>

#include "widgets/plots/plot_widget.h"

namespace attnlab::widgets::testing {

/// Distinct colours on a coarse sampling grid; a blank or single-colour image gives 1.
inline int distinctColours(const QImage& image, int stride = 3) {
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); y += stride)
    for (int x = 0; x < image.width(); x += stride) colours.insert(image.pixel(x, y));
  return static_cast<int>(colours.size());
}

inline QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Exports `plot` to all three formats in `dir`; returns "" when every file is valid,
/// otherwise what is wrong.
inline QString checkExports(PlotWidget& plot, const QString& dir, const QString& stem) {
  const QString title = plot.title();
  const QString png = QDir(dir).filePath(stem + ".png");
  const QString svg = QDir(dir).filePath(stem + ".svg");
  const QString pdf = QDir(dir).filePath(stem + ".pdf");
  ExportOptions o;
  o.widthPx = 700;
  o.heightPx = 500;
  o.dpi = 144;
  for (auto [path, format] : {std::pair{png, ExportFormat::Png}, std::pair{svg, ExportFormat::Svg},
                              std::pair{pdf, ExportFormat::Pdf}}) {
    const ExportResult r = plot.exportTo(path, format, o);
    if (!r.ok) return r.error;
  }
  if (!readAll(png).startsWith("\x89PNG\r\n\x1a\n")) return png + ": no PNG signature";
  const QImage image(png);
  if (image.size() != QSize(1050, 750)) return png + ": unexpected size";
  if (distinctColours(image) < 6) return png + ": blank";
  const QByteArray svgBytes = readAll(svg);
  QXmlStreamReader xml(svgBytes);
  bool sawSvg = false;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement() && xml.name() == QLatin1String("svg")) sawSvg = true;
  }
  if (xml.hasError()) return svg + ": " + xml.errorString();
  if (!sawSvg) return svg + ": no <svg> element";
  if (!title.isEmpty() && !svgBytes.contains(title.toHtmlEscaped().toUtf8()))
    return svg + ": title missing";
  if (!readAll(pdf).startsWith("%PDF")) return pdf + ": no %PDF header";
  return {};
}

}  // namespace attnlab::widgets::testing
