#include "app/gui/panels/figure_view.h"

#include "app/gui/panels/export_figure_dialog.h"
#include "app/gui/panels/figure_files.h"
#include "figures/figure_builder.h"
#include "widgets/plots/plot_widget.h"
#include "widgets/plots/theme.h"

#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <exception>

namespace attnlab::app {

FigureView::FigureView(QWidget* parent) : QWidget(parent) {
  m_layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  m_heading = new QLabel(this);
  m_heading->setObjectName(QStringLiteral("figureHeading"));
  m_heading->setTextFormat(Qt::PlainText);
  m_heading->setWordWrap(true);
  QFont bold = m_heading->font();
  bold.setBold(true);
  m_heading->setFont(bold);
  m_exportButton = newExportFigureButton(QStringLiteral("figureExportButton"), this);
  top->addWidget(m_heading, 1);
  top->addWidget(m_exportButton);
  m_layout->addLayout(top);
  m_provenance = new QLabel(this);
  m_provenance->setObjectName(QStringLiteral("figureProvenance"));
  m_provenance->setTextFormat(Qt::PlainText);
  m_provenance->setWordWrap(true);
  m_provenance->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_layout->addWidget(m_provenance);
  m_message = new QLabel(this);
  m_message->setObjectName(QStringLiteral("figureMessage"));
  m_message->setTextFormat(Qt::PlainText);
  m_message->setWordWrap(true);
  m_message->setAlignment(Qt::AlignCenter);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_layout->addWidget(m_message, 1);
  connect(m_exportButton, &QPushButton::clicked, this, &FigureView::askExport);
}

FigureView::~FigureView() = default;

void FigureView::clear() {
  if (m_plot != nullptr) {
    m_layout->removeWidget(m_plot);
    m_plot->deleteLater();
    m_plot = nullptr;
  }
  m_exportButton->setEnabled(false);
}

QString FigureView::build(const std::string& name, const QStringList& runDirs,
                          std::optional<std::int64_t> step) {
  clear();
  m_name = QString::fromStdString(name);
  m_folder = runDirs.isEmpty() ? QDir::homePath() : runDirs.front();
  const figures::FigureSpec* spec = figures::findFigure(name);
  // What it shows, then what it reproduces: the label the person chose it by.
  m_heading->setText(
      spec ? QStringLiteral("%1 — reproduces %2")
                 .arg(QString::fromStdString(spec->title), QString::fromStdString(spec->reproduces))
           : QStringLiteral("Unknown figure %1").arg(m_name));
  figures::FigureRequest request;
  request.figure = name;
  for (const QString& dir : runDirs) request.runs.push_back(dir.toStdString());
  request.step = step;
  try {
    figures::Figure figure = figures::buildFigure(request);
    m_defaults = figures::defaultExportOptions(figure);
    QStringList lines;
    for (const auto& p : figure.provenance)
      lines << QStringLiteral("%1: %2, %3")
                   .arg(QString::fromStdString(p.runName), QString::fromStdString(p.steps),
                        QString::fromStdString(p.source));
    m_provenance->setText(lines.join(QLatin1Char('\n')));
    m_provenance->setToolTip(spec ? QString::fromStdString(spec->units) : QString());
    // The layout owns the plot from here on (the figure would delete it with itself).
    m_plot = figure.plot.release();
    m_plot->setParent(this);
    m_plot->setMinimumHeight(300);
    m_layout->insertWidget(2, m_plot, 4);
    m_message->hide();
    m_exportButton->setEnabled(true);
    m_error.clear();
  } catch (const std::exception& e) {
    m_error = QString::fromStdString(e.what());
    m_provenance->clear();
    m_message->setText(m_error);
    m_message->show();
  }
  return m_error;
}

void FigureView::askExport() {
  auto* dialog = new ExportFigureDialog(QDir(m_folder).filePath(m_name + QStringLiteral(".png")),
                                        m_defaults, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    const QString error = exportTo(dialog->path(), dialog->options());
    if (error.isEmpty())
      emit exported(dialog->path());
    else
      emit exportFailed(error);
  });
  dialog->open();
}

QString FigureView::exportTo(const QString& path, const widgets::ExportOptions& options) {
  if (m_plot == nullptr)
    return m_error.isEmpty() ? QStringLiteral("there is no figure to export") : m_error;
  QString error;
  const auto format = figureFormatOf(path, &error);
  if (!format) return error;
  const widgets::ExportResult result = m_plot->exportTo(path, *format, options);
  return result.ok ? QString() : result.error;
}

widgets::ExportOptions FigureView::defaultOptions() const {
  return m_defaults;
}

QString FigureView::provenanceText() const {
  return m_provenance->text();
}

void FigureView::setTheme(const widgets::Theme& theme) {
  if (m_plot != nullptr) m_plot->setTheme(theme);
}

}  // namespace attnlab::app
