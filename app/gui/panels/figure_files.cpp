#include "app/gui/panels/figure_files.h"

#include "figures/figure_builder.h"
#include "widgets/plots/plot_widget.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QPushButton>

#include <exception>

namespace attnlab::app {

QString figureFileStem(const QString& title) {
  // Runs of anything but a-z and 0-9 become one dash, without dashes at either end.
  QString stem;
  for (const QChar c : title.toLower()) {
    const bool keep = (c >= QLatin1Char('a') && c <= QLatin1Char('z')) ||
                      (c >= QLatin1Char('0') && c <= QLatin1Char('9'));
    if (keep)
      stem += c;
    else if (!stem.isEmpty() && !stem.endsWith(QLatin1Char('-')))
      stem += QLatin1Char('-');
  }
  while (stem.endsWith(QLatin1Char('-'))) stem.chop(1);
  if (stem.size() > 60) stem.truncate(60);
  return stem.isEmpty() ? QStringLiteral("figure") : stem;
}

QPushButton* newExportFigureButton(const QString& objectName, QWidget* parent) {
  auto* button = new QPushButton(QStringLiteral("Export figure..."), parent);
  button->setObjectName(objectName);
  button->setEnabled(false);
  return button;
}

std::optional<widgets::ExportFormat> figureFormatOf(const QString& path, QString* error) {
  widgets::ExportFormat format{};
  if (widgets::parseExportFormat(QFileInfo(path).suffix(), &format)) return format;
  if (error) *error = QStringLiteral("%1: choose a .png, .svg or .pdf file").arg(path);
  return std::nullopt;
}

QString exportPlotFile(widgets::PlotWidget* plot, const QString& path,
                       const widgets::ExportOptions& options) {
  QString error;
  const auto format = figureFormatOf(path, &error);
  if (!format) return error;
  if (plot == nullptr) return QStringLiteral("this view has nothing to export yet");
  const widgets::ExportResult result = plot->exportTo(path, *format, options);
  return result.ok ? QString() : result.error;
}

QString askFigurePath(QWidget* parent, const QString& suggested) {
  return QFileDialog::getSaveFileName(
      parent, QStringLiteral("Export figure"), suggested,
      QStringLiteral("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"));
}

QString exportCatalogFigure(const std::string& figure, const std::string& runDir, std::int64_t step,
                            const QString& path) {
  QString error;
  const auto format = figureFormatOf(path, &error);
  if (!format) return error;
  try {
    figures::FigureRequest request;
    request.figure = figure;
    request.runs = {runDir};
    request.step = step;
    figures::Figure built = figures::buildFigure(request);
    figures::exportFigure(built, path.toStdString(), *format, figures::defaultExportOptions(built));
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace attnlab::app
