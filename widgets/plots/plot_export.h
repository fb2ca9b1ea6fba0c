#pragma once

#include <QString>

class QCustomPlot;

namespace attnlab::widgets {

enum class ExportFormat { Png, Svg, Pdf };

struct ExportOptions {
  int widthPx = 800;  ///< logical size of the figure
  int heightPx = 600;
  double dpi = 150.0;  ///< PNG only: pixel density (96 = screen size, 300 = print)
  QString title;       ///< document title written into SVG and PDF metadata
};

/// The outcome of an export; `error` says what failed and where when `ok` is false.
struct ExportResult {
  bool ok = false;
  QString error;
};

/// Parses "png", "svg" or "pdf" (case-insensitive); returns false for anything else.
bool parseExportFormat(const QString& text, ExportFormat* format);

/// The one export path of the project: renders `plot` to PNG, SVG (vector, Qt Svg) or
/// PDF and writes it atomically. An unwritable path or a full disk comes back as an
/// error; a file that existed before is left untouched on failure.
ExportResult exportPlot(QCustomPlot& plot, const QString& path, ExportFormat format,
                        const ExportOptions& options = {});

}  // namespace attnlab::widgets
