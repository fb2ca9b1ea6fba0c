#include "widgets/plots/plot_export.h"

#include <qcustomplot.h>
#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace attnlab::widgets {
namespace {

ExportResult failure(const QString& path, const QString& why) {
  return {false, QStringLiteral("%1: %2").arg(path, why)};
}

QByteArray renderPng(QCustomPlot& plot, const ExportOptions& o) {
  const double scale = o.dpi / 96.0;
  QImage image = plot.toPixmap(o.widthPx, o.heightPx, scale).toImage();
  const int dotsPerMeter = qRound(o.dpi / 0.0254);
  image.setDotsPerMeterX(dotsPerMeter);
  image.setDotsPerMeterY(dotsPerMeter);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  return bytes;
}

QByteArray renderSvg(QCustomPlot& plot, const ExportOptions& o) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(QSize(o.widthPx, o.heightPx));
  generator.setViewBox(QRect(0, 0, o.widthPx, o.heightPx));
  generator.setTitle(o.title);
  generator.setDescription(QStringLiteral("Exported by AttnLab"));
  QCPPainter painter;
  painter.begin(&generator);
  plot.toPainter(&painter, o.widthPx, o.heightPx);
  painter.end();
  return bytes;
}

QByteArray renderPdf(QCustomPlot& plot, const ExportOptions& o) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QPdfWriter writer(&buffer);
  writer.setTitle(o.title);
  writer.setCreator(QStringLiteral("AttnLab"));
  // One PDF point per logical pixel keeps text and line widths as on screen.
  writer.setResolution(72);
  writer.setPageSize(QPageSize(QSizeF(o.widthPx, o.heightPx), QPageSize::Point));
  writer.setPageMargins(QMarginsF(0, 0, 0, 0));
  QCPPainter painter;
  painter.begin(&writer);
  plot.toPainter(&painter, o.widthPx, o.heightPx);
  painter.end();
  return bytes;
}

}  // namespace

bool parseExportFormat(const QString& text, ExportFormat* format) {
  const QString t = text.trimmed().toLower();
  if (t == QLatin1String("png"))
    *format = ExportFormat::Png;
  else if (t == QLatin1String("svg"))
    *format = ExportFormat::Svg;
  else if (t == QLatin1String("pdf"))
    *format = ExportFormat::Pdf;
  else
    return false;
  return true;
}

ExportResult exportPlot(QCustomPlot& plot, const QString& path, ExportFormat format,
                        const ExportOptions& options) {
  if (options.widthPx <= 0 || options.heightPx <= 0 || options.dpi <= 0) {
    return failure(path, QStringLiteral("figure size and DPI must be positive"));
  }
  const QFileInfo info(path);
  if (!info.absoluteDir().exists()) {
    return failure(path, QStringLiteral("folder %1 does not exist").arg(info.absolutePath()));
  }
  QByteArray bytes;
  switch (format) {
    case ExportFormat::Png:
      bytes = renderPng(plot, options);
      break;
    case ExportFormat::Svg:
      bytes = renderSvg(plot, options);
      break;
    case ExportFormat::Pdf:
      bytes = renderPdf(plot, options);
      break;
  }
  if (bytes.isEmpty()) return failure(path, QStringLiteral("rendering produced no data"));

  // QSaveFile writes a temporary file and renames it on commit, so a failed write
  // (full disk, permissions) never replaces an existing figure with a partial one.
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return failure(path, file.errorString());
  if (file.write(bytes) != bytes.size()) {
    const QString why = file.errorString();
    file.cancelWriting();
    return failure(path, QStringLiteral("write failed: %1").arg(why));
  }
  if (!file.commit())
    return failure(path, QStringLiteral("write failed: %1").arg(file.errorString()));
  return {true, {}};
}

}  // namespace attnlab::widgets
