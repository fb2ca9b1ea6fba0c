#include "app/cli/figure_export.h"

#include "app/cli/command_errors.h"
#include "figures/figure_builder.h"
#include "figures/figure_catalog.h"
#include "figures/figure_errors.h"
#include "figures/figure_report.h"

#include <QApplication>
#include <QString>

#include <cstdio>

namespace attnlab::app {
namespace {

using figures::FigureError;

// Widgets need a windowing platform even offscreen; on a server (no display) Qt would abort
// looking for one, so the export picks Qt's offscreen platform unless the user chose one.
void preferOffscreenWithoutDisplay() {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
      qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
}

widgets::ExportFormat formatOf(const ExportCommandOptions& o) {
  QString text = QString::fromStdString(o.format);
  if (text.isEmpty()) text = QString::fromStdString(o.out.extension().string()).mid(1);
  widgets::ExportFormat format{};
  if (!widgets::parseExportFormat(text, &format)) {
    throw FigureError(o.out.string(),
                      "give --format png, svg or pdf, or an --out ending in .png, .svg or .pdf");
  }
  return format;
}

void applySize(const ExportCommandOptions& o, widgets::ExportOptions& options) {
  if (o.width) options.widthPx = *o.width;
  if (o.height) options.heightPx = *o.height;
  if (o.dpi) options.dpi = *o.dpi;
}

int exportOne(const ExportCommandOptions& o) {
  if (o.figure.empty()) {
    throw FigureError("export",
                      "give --figure NAME (attnlab-cli export --list names them), "
                      "--report DIR or --list");
  }
  if (o.out.empty()) throw FigureError(o.figure, "give --out PATH, the file to write");
  const auto format = formatOf(o);
  figures::Figure figure = figures::buildFigure({o.figure, o.runs, o.step});
  widgets::ExportOptions options = figures::defaultExportOptions(figure);
  applySize(o, options);
  figures::exportFigure(figure, o.out, format, options);
  std::printf("wrote %s: %s, %d x %d", o.out.string().c_str(), o.figure.c_str(), options.widthPx,
              options.heightPx);
  if (format == widgets::ExportFormat::Png) std::printf(" at %g dpi", options.dpi);
  std::printf("\n");
  return 0;
}

int exportReport(const ExportCommandOptions& o) {
  if (o.runs.size() != 1) {
    throw FigureError("--report", "takes one run, got " + std::to_string(o.runs.size()));
  }
  if (!o.figure.empty() || !o.out.empty() || !o.format.empty()) {
    throw FigureError("--report",
                      "writes every figure that applies in PNG, SVG and PDF; leave "
                      "out --figure, --out and --format");
  }
  figures::FigureReportOptions options;
  options.run = o.runs.front();
  options.outDir = o.reportDir;
  options.step = o.step;
  options.widthPx = o.width;
  options.heightPx = o.height;
  options.dpi = o.dpi;
  const auto report = figures::writeFigureReport(options);
  int written = 0;
  for (const auto& e : report.entries) {
    if (e.files.empty()) {
      std::printf("  %s: does not apply: %s\n", e.figure.c_str(), e.notApplicable.c_str());
    } else {
      ++written;
      std::printf("  %s: png, svg, pdf\n", e.figure.c_str());
    }
  }
  std::printf("wrote %d figures and %s\n", written, report.index.string().c_str());
  return 0;
}

}  // namespace

int runFigureExport(const ExportCommandOptions& o) {
  return runReportingErrors("export", [&] {
    preferOffscreenWithoutDisplay();
    // The plots are widgets: they need an application object, made here and only for the
    // export, so the other commands never touch Qt's GUI.
    int argc = 1;
    char name[] = "attnlab-cli";
    char* argv[] = {name, nullptr};
    QApplication application(argc, argv);
    return o.reportDir.empty() ? exportOne(o) : exportReport(o);
  });
}

}  // namespace attnlab::app
