#pragma once

// The context menu of every plot in the window: Export figure... (the export dialog: file,
// format, size, DPI) and Copy image. One application-wide event filter, so plots that panels
// create later (analysis views, figure views) get it too without knowing about the app, and
// widgets/ stays free of dialogs. A QObject without widgets of its own.

#include "widgets/plots/plot_export.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

class QMenu;

namespace attnlab::widgets {
class PlotWidget;
}

namespace attnlab::app {

class ExportFigureDialog;

class PlotContextMenu : public QObject {
  Q_OBJECT
 public:
  /// Filters context-menu events of every widget of the application while it lives.
  explicit PlotContextMenu(QObject* parent = nullptr);
  ~PlotContextMenu() override;

  /// The folder the export dialog proposes (the runs folder).
  void setFolder(std::function<QString()> folder) { m_folder = std::move(folder); }

  /// The menu shown last (tests trigger its actions); null before the first.
  QMenu* menu() const { return m_menu; }
  /// The export dialog open now, if any (it is modeless to the event loop: open(), not exec()).
  ExportFigureDialog* dialog() const;

  /// The plot under a widget: itself or its nearest PlotWidget ancestor; null otherwise.
  static widgets::PlotWidget* plotOf(QObject* object);
  /// What the export dialog's Export does.
  static widgets::ExportResult exportPlot(widgets::PlotWidget& plot, const QString& path,
                                          const widgets::ExportOptions& options);

 signals:
  void exported(const QString& path);
  void exportFailed(const QString& error);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void popup(widgets::PlotWidget* plot, const QPoint& globalPos);
  void askExport(widgets::PlotWidget* plot);

  std::function<QString()> m_folder;
  QPointer<QMenu> m_menu;
  QPointer<ExportFigureDialog> m_dialog;
};

}  // namespace attnlab::app
