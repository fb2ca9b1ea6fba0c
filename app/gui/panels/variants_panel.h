#pragma once

// The Variants tab: the attention variants' own per-layer quantities of one run (the first
// selected) over steps: ASA's masking proportion, SesameBERT's layer weights, the learned
// temperatures (per layer and head), one plot each.

#include "app/gui/panels/run_view.h"
#include "app/gui/run_session.h"
#include "widgets/plots/layer_series_plot.h"
#include "widgets/plots/plot_data.h"
#include "widgets/plots/theme.h"

#include <QList>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QWidget>

#include <map>

class QComboBox;
class QHBoxLayout;

namespace attnlab::app {

class PlaceholderStack;
class PlotGrid;
class RefreshThrottle;

class VariantsPanel : public QWidget, public RunView {
  Q_OBJECT
 public:
  /// How the plots draw their rows.
  enum class View {
    Automatic,  ///< lines up to 16 rows (per-layer series), a heatmap above (per head)
    Lines,
    Heatmap,
  };

  explicit VariantsPanel(QWidget* parent = nullptr);
  ~VariantsPanel() override;

  /// The runs selected in the sidebar; the panel shows the first.
  void setRuns(const QList<RunSession*>& runs) override;
  void setTheme(const widgets::Theme& theme) override;
  /// File > Export figure on this tab.
  QString exportCurrentFigure(const QString& path, const widgets::ExportOptions& options) override;

  /// Whether the run shown logs any per-layer quantity (the main window shows the tab
  /// only then); contentChanged() tells when that flips.
  bool hasContent() const;

  void setView(View view);
  View view() const;

  /// The series shown, in order, and the plot of one (nullptr when not shown).
  QStringList seriesNames() const;
  widgets::LayerSeriesPlot* plotFor(const QString& series) const;

  /// A series as plot rows: one row per layer ([L]) or per layer and head ([L, H], row
  /// l * H + h), one column per logged step.
  static widgets::Matrix rowsOverSteps(const LayerSeries& series);
  /// "L0", "L1", ... or "L0 H0", "L0 H1", ... matching rowsOverSteps().
  static QStringList rowLabels(const LayerSeries& series);

 signals:
  void contentChanged(bool hasContent);

 protected:
 private:
  /// The View box over the plots.
  QHBoxLayout* buildToolbar(QWidget* content);
  void refresh();
  void rebuild();
  void updatePending();
  widgets::LayerSeriesPlot* addPlot(const QString& name);
  void fill(widgets::LayerSeriesPlot* plot, const LayerSeries& series);
  widgets::LayerSeriesView viewFor(int rows) const;
  void relayoutGrid();
  void updatePlaceholder();
  void noteContent();

  QPointer<RunSession> m_run;
  std::map<QString, widgets::LayerSeriesPlot*> m_plots;
  QStringList m_order;  // display order of m_plots' names
  QSet<QString> m_pending;
  bool m_rebuildPending = false;
  bool m_hadContent = false;
  RefreshThrottle* m_refresh = nullptr;  // redraws at most every 40 ms, while shown
  widgets::Theme m_theme = widgets::Theme::light();

  QComboBox* m_viewBox = nullptr;
  PlaceholderStack* m_page = nullptr;  // the View box and the plots, or why there are none
  PlotGrid* m_grid = nullptr;
};

}  // namespace attnlab::app
