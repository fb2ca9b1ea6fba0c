#pragma once

#include <QImage>
#include <QString>
#include <QWidget>

#include "widgets/plots/plot_export.h"
#include "widgets/plots/theme.h"

class QCustomPlot;
class QCPLayoutGrid;
class QCPTextElement;
class QVBoxLayout;

namespace attnlab::widgets {

/// Base of every AttnLab plot: a QCustomPlot with a title row, a theme, and the one export
/// path. Subclasses take plain data, draw it and emit user intent; they hold no model or
/// analysis state.
class PlotWidget : public QWidget {
  Q_OBJECT
 public:
  explicit PlotWidget(QWidget* parent = nullptr);
  ~PlotWidget() override;

  /// The title drawn above the plot and written into exported files.
  void setTitle(const QString& title);
  QString title() const;

  /// Applies a theme now and to everything drawn later.
  void setTheme(const Theme& theme);
  const Theme& theme() const { return m_theme; }

  /// Writes the plot (title, axis labels with units, legend, colour scale) to PNG, SVG or
  /// PDF through exportPlot(). The size defaults to `options`; an empty options.title takes
  /// the plot's title. Failures come back in the result, never silently.
  ExportResult exportTo(const QString& path, ExportFormat format, ExportOptions options = {});

  /// Renders the plot offscreen at `size` logical pixels times `scale` (for tests, the
  /// gallery and thumbnails); does not touch the on-screen widget.
  QImage renderImage(QSize size, double scale = 1.0);

  /// Redraws now (tests, benchmarks); the GUI uses requestReplot().
  void replotNow();
  /// Queues one redraw for the next event-loop pass; many calls coalesce into one.
  void requestReplot();

  /// True when the plot shows a menu of its own for a right click at `globalPos` (HeadGrid
  /// over a head whose owner offers actions for it): the app's menu for every plot (Export
  /// figure..., Copy image) then leaves that click to the plot.
  virtual bool handlesContextMenuAt(const QPoint& globalPos) const {
    Q_UNUSED(globalPos);
    return false;
  }

  /// The underlying plot, for embedding and tests. Callers outside widgets/ should use
  /// the typed setters of the subclasses rather than QCustomPlot internals.
  QCustomPlot* customPlot() const { return m_plot; }

 protected:
  /// Swallows the plot's resize to an empty size (a collapsed splitter, a tab being laid
  /// out): QCustomPlot would replot into a null buffer and warn; the next real size redraws.
  bool eventFilter(QObject* watched, QEvent* event) override;
  /// Re-applies widget-specific colours after the theme changed (series, overlays, ...).
  virtual void applyThemeToContent() {}
  /// Called after QCustomPlot laid out the plot and before it draws (on screen and for
  /// every export size): the place for work that depends on pixel sizes (tick thinning,
  /// per-pixel-column decimation).
  virtual void afterLayout() {}
  /// Gives a hidden widget's plot its size (done by Qt only when the widget is shown).
  void ensureLaidOut();
  /// Re-runs QCustomPlot's layout passes; for afterLayout() handlers that changed ticks.
  void relayout();
  /// The layout the subclass may add controls to (above the plot).
  QVBoxLayout* controlsLayout() const { return m_layout; }
  /// The plot's content grid below the title; (0, 0) holds the default axis rect.
  QCPLayoutGrid* content() const { return m_content; }

  QCustomPlot* m_plot = nullptr;
  QCPTextElement* m_titleElement = nullptr;
  QCPLayoutGrid* m_content = nullptr;
  Theme m_theme = Theme::light();

 private:
  QVBoxLayout* m_layout = nullptr;
  bool m_inLayoutHook = false;
};

}  // namespace attnlab::widgets
