#include "app/gui/view_tabs.h"

#include "app/gui/analysis_controller.h"

#include "app/gui/panels/analysis_panel.h"
#include "app/gui/panels/attention_panel.h"
#include "app/gui/panels/compare_panel.h"
#include "app/gui/panels/console_dock.h"
#include "app/gui/panels/curves_panel.h"
#include "app/gui/panels/figure_files.h"
#include "app/gui/panels/figure_view.h"
#include "app/gui/panels/health/health_panel.h"
#include "app/gui/panels/inspector_panel.h"
#include "app/gui/panels/probe_panel.h"
#include "app/gui/panels/variants_panel.h"

#include <QTabBar>

namespace attnlab::app {

template <class Exporter>
void ViewTabs::relayExports(Exporter* source) {
  connect(source, &Exporter::exported, this, &ViewTabs::exported);
  connect(source, &Exporter::exportFailed, this, &ViewTabs::exportFailed);
}

ViewTabs::ViewTabs(QWidget* parent)
    : QTabWidget(parent),
      m_curves(new CurvesPanel(this)),
      m_attention(new AttentionPanel(this)),
      m_health(new HealthPanel(this)),
      m_inspector(new InspectorPanel(this)),
      m_variants(new VariantsPanel(this)),
      m_analysis(new AnalysisPanel(this)),
      m_probe(new ProbePanel(this)),
      m_compare(new ComparePanel(this)) {
  setObjectName(QStringLiteral("viewTabs"));
  setDocumentMode(true);
  addTab(m_curves, QStringLiteral("Curves"));
  addTab(m_attention, QStringLiteral("Attention"));
  addTab(m_health, QStringLiteral("Health"));
  addTab(m_inspector, QStringLiteral("Inspect"));
  addTab(m_variants, QStringLiteral("Variants"));
  addTab(m_analysis, QStringLiteral("Analysis"));
  addTab(m_probe, QStringLiteral("Probe"));
  addTab(m_compare, QStringLiteral("Compare"));
  // Figure tabs (Figures menu) close; the views above stay.
  setTabsClosable(true);
  for (int i = 0; i < count(); ++i) {
    tabBar()->setTabButton(i, QTabBar::RightSide, nullptr);
    tabBar()->setTabButton(i, QTabBar::LeftSide, nullptr);
  }
  connect(this, &QTabWidget::tabCloseRequested, this, &ViewTabs::closeFigure);
  relayExports(m_analysis);
  relayExports(m_probe);
  relayExports(m_compare);
  wireHealth();
}

void ViewTabs::wireHealth() {
  connect(m_health, &HealthPanel::inspectRequested, this,
          [this](int layer, int head, qint64 checkpointStep) {
            // The checkpoint and head first: showing the tab inspects what it points at.
            if (checkpointStep >= 0) m_inspector->selectCheckpointStep(checkpointStep);
            m_inspector->selectHead(layer, head);
            setCurrentWidget(m_inspector);
          });
  connect(m_health, &HealthPanel::alarmRaised, this,
          [this](RunSession* run, const RunMessage& line) {
            if (auto* console = window()->findChild<ConsoleDock*>())
              console->append(run->name(), run->colour(), line);
          });
}

void ViewTabs::setJobs(AnalysisController* analysis) {
  m_analysis->setAnalysisController(analysis);
  m_probe->setAnalysisController(analysis);
  m_compare->setAnalysisController(analysis);
  m_inspector->setModels(analysis->models());
}

void ViewTabs::closeFigure(int index) {
  if (auto* view = qobject_cast<FigureView*>(widget(index))) {
    removeTab(index);
    view->deleteLater();
  }
}

QList<RunView*> ViewTabs::runViews() const {
  QList<RunView*> list;
  for (int i = 0; i < count(); ++i)
    if (auto* view = dynamic_cast<RunView*>(widget(i))) list << view;
  return list;
}

void ViewTabs::setRuns(const QList<RunSession*>& runs) {
  for (RunView* view : runViews()) view->setRuns(runs);
}

void ViewTabs::setTheme(const widgets::Theme& theme) {
  for (RunView* view : runViews()) view->setTheme(theme);
  // The Compare tab's figures too (figure tabs are views themselves).
  for (FigureView* view : m_compare->findChildren<FigureView*>()) view->setTheme(theme);
}

bool ViewTabs::showView(const QString& spec) {
  const QStringList parts = spec.split(QLatin1Char('/'));
  int found = -1;
  for (int i = 0; i < count(); ++i)
    if (tabText(i).compare(parts.front(), Qt::CaseInsensitive) == 0) found = i;
  if (found < 0) return false;
  setCurrentIndex(found);
  if (parts.size() < 2) return true;
  // The Compare tab picks its comparison by key ("Compare/heads-matching").
  if (currentWidget() == comparePanel()) return comparePanel()->showComparison(parts[1]);
  for (QTabWidget* inner : currentWidget()->findChildren<QTabWidget*>())
    for (int i = 0; i < inner->count(); ++i)
      if (inner->tabText(i).compare(parts[1], Qt::CaseInsensitive) == 0) inner->setCurrentIndex(i);
  return true;
}

QString ViewTabs::exportCurrentView(const QString& path, const widgets::ExportOptions& options) {
  auto* view = dynamic_cast<RunView*>(currentWidget());
  if (view == nullptr) return QStringLiteral("this view has nothing to export yet");
  return view->exportCurrentFigure(path, options);
}

QString ViewTabs::currentFileStem() const {
  return figureFileStem(tabText(currentIndex()));
}

widgets::ExportOptions ViewTabs::currentExportDefaults() const {
  if (auto* figure = qobject_cast<FigureView*>(currentWidget())) return figure->defaultOptions();
  return {};
}

void ViewTabs::addFigure(FigureView* view, const QString& title) {
  relayExports(view);
  const int index = addTab(view, title);
  setTabToolTip(index, view->provenanceText());
  setCurrentIndex(index);
}

FigureView* ViewTabs::openFigure(const QString& name, const QStringList& runDirectories,
                                 const widgets::Theme& theme, QString* error) {
  auto* view = new FigureView(this);
  view->setTheme(theme);
  const QString why = view->build(name.toStdString(), runDirectories);
  addFigure(view, name);
  if (error) *error = why;
  return view;
}

}  // namespace attnlab::app
