#pragma once

// The window's centre: one tab per view of the runs selected in the sidebar (Curves,
// Attention, Inspect, Variants, Analysis, Probe, Compare), then the figure tabs the Figures
// menu opens (closable). Every tab is a RunView: selection, theme and export reach them all
// through one loop here, so a new tab is one class and one line in the constructor.

#include "app/gui/panels/run_view.h"
#include "widgets/plots/plot_export.h"

#include <QList>
#include <QString>
#include <QTabWidget>

namespace attnlab::widgets {
struct Theme;
}

namespace attnlab::app {

class AnalysisPanel;
class AttentionPanel;
class ComparePanel;
class CurvesPanel;
class FigureView;
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
  InspectorPanel* inspectorPanel() const { return m_inspector; }
  VariantsPanel* variantsPanel() const { return m_variants; }
  AnalysisPanel* analysisPanel() const { return m_analysis; }
  ProbePanel* probePanel() const { return m_probe; }
  ComparePanel* comparePanel() const { return m_compare; }

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

 private:
  void closeFigure(int index);

  CurvesPanel* m_curves;
  AttentionPanel* m_attention;
  InspectorPanel* m_inspector;
  VariantsPanel* m_variants;
  AnalysisPanel* m_analysis;
  ProbePanel* m_probe;
  ComparePanel* m_compare;
};

}  // namespace attnlab::app
