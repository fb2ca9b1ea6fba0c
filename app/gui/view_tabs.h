#pragma once

// The window's centre: one tab per view of the runs selected in the sidebar (Curves,
// Attention, Health, Inspect, Variants, Analysis, Probe, Compare), then the figure tabs the
// Figures menu opens (closable). Every tab is a RunView: selection, theme and export reach them all
// through one loop here, so a new tab is one class and one line in the constructor. The tabs'
// export results reach the window as this widget's exported / exportFailed.

#include "app/gui/panels/run_view.h"
#include "widgets/plots/plot_export.h"

#include <QList>
#include <QString>
#include <QTabWidget>

namespace attnlab::widgets {
struct Theme;
}

namespace attnlab::app {

class AnalysisController;
class AnalysisPanel;
class AttentionPanel;
class ComparePanel;
class CurvesPanel;
class FigureView;
class HealthPanel;
class InspectorPanel;
class ProbePanel;
class RunSession;
class VariantsPanel;

class ViewTabs : public QTabWidget {
  Q_OBJECT
 public:
  explicit ViewTabs(QWidget* parent = nullptr);

  CurvesPanel* curvesPanel() const { return m_curves; }
  AttentionPanel* attentionPanel() const { return m_attention; }
  HealthPanel* healthPanel() const { return m_health; }
  InspectorPanel* inspectorPanel() const { return m_inspector; }
  VariantsPanel* variantsPanel() const { return m_variants; }
  AnalysisPanel* analysisPanel() const { return m_analysis; }
  ProbePanel* probePanel() const { return m_probe; }
  ComparePanel* comparePanel() const { return m_compare; }

  /// What the tabs start their jobs with: the Analysis, Probe and Compare tabs' controller
  /// (one job at a time), and its models, which the Inspect tab and its query-key maps share.
  void setJobs(AnalysisController* analysis);
  /// Every tab, figure tabs included, as views of the selected runs.
  QList<RunView*> runViews() const;
  void setRuns(const QList<RunSession*>& runs);
  void setTheme(const widgets::Theme& theme);
  /// Shows a tab by its title, and a tab inside it after a slash ("Analysis/Head
  /// summaries"), case-insensitively. False when no tab has that title.
  bool showView(const QString& spec);
  /// The current tab's figure to `path` (.png, .svg or .pdf, by its suffix). Returns the
  /// error, empty on success (the old file is kept on failure).
  QString exportCurrentView(const QString& path, const widgets::ExportOptions& options = {});
  /// What the export dialog proposes for the current tab: a file name from its title
  /// ("head-summaries"), and a figure tab's own size.
  QString currentFileStem() const;
  widgets::ExportOptions currentExportDefaults() const;
  /// Adds a figure (Figures menu) as a closable tab and shows it.
  void addFigure(FigureView* view, const QString& title);
  /// Builds catalog figure `name` from `runDirectories` in a new figure tab drawn with
  /// `theme` (Figures menu) and shows it; `error` is why it could not be drawn, if so.
  FigureView* openFigure(const QString& name, const QStringList& runDirectories,
                         const widgets::Theme& theme, QString* error);

 signals:
  /// A tab or a figure tab wrote a figure or a table, or failed to (Notices tells the person).
  void exported(const QString& path);
  void exportFailed(const QString& error);

 private:
  void closeFigure(int index);
  template <class Exporter>
  void relayExports(Exporter* source);
  /// The Health tab's requests: a head to inspect (the Inspect tab, at that checkpoint) and
  /// its alarms' console lines (the window's console).
  void wireHealth();

  CurvesPanel* m_curves;
  AttentionPanel* m_attention;
  HealthPanel* m_health;
  InspectorPanel* m_inspector;
  VariantsPanel* m_variants;
  AnalysisPanel* m_analysis;
  ProbePanel* m_probe;
  ComparePanel* m_compare;
};

}  // namespace attnlab::app
