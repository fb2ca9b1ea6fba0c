#include "app/gui/plot_context_menu.h"

#include "app/gui/panels/export_figure_dialog.h"
#include "app/gui/panels/figure_files.h"
#include "widgets/plots/plot_widget.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDir>
#include <QMenu>

namespace attnlab::app {

PlotContextMenu::PlotContextMenu(QObject* parent) : QObject(parent) {
  qApp->installEventFilter(this);
}

ExportFigureDialog* PlotContextMenu::dialog() const {
  return m_dialog;
}

PlotContextMenu::~PlotContextMenu() {
  if (qApp) qApp->removeEventFilter(this);
}

widgets::PlotWidget* PlotContextMenu::plotOf(QObject* object) {
  for (QObject* o = object; o != nullptr; o = o->parent()) {
    if (auto* plot = qobject_cast<widgets::PlotWidget*>(o)) return plot;
    if (o->isWidgetType() && static_cast<QWidget*>(o)->isWindow()) break;
  }
  return nullptr;
}

widgets::ExportResult PlotContextMenu::exportPlot(widgets::PlotWidget& plot, const QString& path,
                                                  const widgets::ExportOptions& options) {
  QString error;
  const auto format = figureFormatOf(path, &error);
  if (!format) return {false, error};
  return plot.exportTo(path, *format, options);
}

bool PlotContextMenu::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::ContextMenu) return false;
  widgets::PlotWidget* plot = plotOf(watched);
  if (plot == nullptr) return false;
  const QPoint at = static_cast<QContextMenuEvent*>(event)->globalPos();
  if (plot->handlesContextMenuAt(at)) return false;  // the plot's owner shows its own menu
  popup(plot, at);
  return true;
}

// popup(), not exec(): the event loop keeps running (live curves keep drawing) and tests can
// reach the menu and the dialog without nested loops.
void PlotContextMenu::popup(widgets::PlotWidget* plot, const QPoint& globalPos) {
  if (m_menu) m_menu->deleteLater();
  m_menu = new QMenu(plot);
  m_menu->setAttribute(Qt::WA_DeleteOnClose);
  QPointer<widgets::PlotWidget> target(plot);
  m_menu->addAction(QStringLiteral("Export figure..."), this, [this, target] {
    if (target) askExport(target);
  });
  m_menu->addAction(QStringLiteral("Copy image"), this, [target] {
    if (target) QApplication::clipboard()->setImage(target->renderImage(target->size(), 2.0));
  });
  m_menu->popup(globalPos);
}

void PlotContextMenu::askExport(widgets::PlotWidget* plot) {
  if (m_dialog) m_dialog->deleteLater();
  const QString folder = m_folder ? m_folder() : QDir::homePath();
  const QString suggested =
      QDir(folder).filePath(figureFileStem(plot->title()) + QStringLiteral(".png"));
  widgets::ExportOptions defaults;
  if (plot->width() > 200 && plot->height() > 150) {
    // What the person sees is the natural default size.
    defaults.widthPx = plot->width();
    defaults.heightPx = plot->height();
  }
  m_dialog = new ExportFigureDialog(suggested, defaults, plot->window());
  m_dialog->setAttribute(Qt::WA_DeleteOnClose);
  QPointer<widgets::PlotWidget> target(plot);
  connect(m_dialog, &QDialog::accepted, this, [this, target, dialog = m_dialog] {
    if (!target || !dialog) return;
    const widgets::ExportResult result = exportPlot(*target, dialog->path(), dialog->options());
    if (result.ok)
      emit exported(dialog->path());
    else
      emit exportFailed(result.error);
  });
  m_dialog->open();
}

}  // namespace attnlab::app
