#pragma once

// The Curves tab: one curve plot per scalar the selected runs log, each run one series in
// its own colour, with smoothing, x axis, log y and fit controls shared by all plots.

#include "app/gui/panels/run_view.h"
#include "app/gui/run_session.h"
#include "widgets/plots/curve_plot.h"
#include "widgets/plots/theme.h"

#include <QHash>
#include <QList>
#include <QPointer>
#include <QSet>
#include <QWidget>

#include <map>
#include <utility>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QSlider;

namespace attnlab::app {

class PlaceholderStack;
class PlotGrid;
class RefreshThrottle;

class CurvesPanel : public QWidget, public RunView {
  Q_OBJECT
 public:
  explicit CurvesPanel(QWidget* parent = nullptr);
  ~CurvesPanel() override;

  /// The runs selected in the sidebar (may be empty); each becomes one series per plot.
  void setRuns(const QList<RunSession*>& runs) override;
  void setTheme(const widgets::Theme& theme) override;
  /// File > Export figure on this tab.
  QString exportCurrentFigure(const QString& path, const widgets::ExportOptions& options) override;

  /// The scalars shown, in display order (train/ first, eval/ next, the rest by name).
  QStringList scalarNames() const;
  /// The plot of one scalar, nullptr when none is shown (tests, exports).
  widgets::CurvePlot* plotFor(const QString& scalar) const;
  /// The series name of `run` in every plot (its name, made unique among the selection).
  QString seriesName(RunSession* run) const;

  /// The shared controls' state.
  double smoothing() const;
  widgets::CurveXAxis xAxis() const;
  bool logY() const;

  /// The order the plots are laid out in.
  static bool scalarOrderLess(const QString& a, const QString& b);
  /// The y-axis quantity and unit of a scalar ("loss", "nats"); unknown names give their
  /// last path component and no unit.
  static std::pair<QString, QString> quantityAndUnit(const QString& scalar);

 protected:
 private:
  struct Run {
    QPointer<RunSession> session;
    QString series;  // the series name in every plot
  };

  /// The controls shared by every plot: smoothing, x axis, log y, fit.
  QHBoxLayout* buildToolbar();
  void addSmoothingControl(QHBoxLayout* bar);
  void addAxisControls(QHBoxLayout* bar);
  void connectControls();

  void refresh();
  void rebuild();
  void appendPending();
  widgets::CurvePlot* addPlot(const QString& scalar);
  void relayoutGrid();
  void fillSeries(widgets::CurvePlot* plot, const QString& scalar, const Run& run, bool append);
  void applyColours(RunSession* session);
  void updatePlaceholder();

  QList<Run> m_runs;
  std::map<QString, widgets::CurvePlot*> m_plots;
  QStringList m_order;
  QSet<QString> m_pending;  // scalars with new points not yet drawn
  bool m_rebuildPending = false;
  bool m_smoothingPending = false;
  RefreshThrottle* m_refresh = nullptr;  // redraws at most every 40 ms, while shown
  widgets::Theme m_theme = widgets::Theme::light();

  QSlider* m_smoothing = nullptr;
  QLabel* m_smoothingValue = nullptr;
  QComboBox* m_xAxis = nullptr;
  QCheckBox* m_logY = nullptr;
  QPushButton* m_fit = nullptr;
  PlaceholderStack* m_page = nullptr;  // "Select a run..." until there is a plot
  PlotGrid* m_grid = nullptr;
};

}  // namespace attnlab::app
