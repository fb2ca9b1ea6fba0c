#include "app/gui/panels/analysis_panel.h"

#include "analysis/report/report_readers.h"
#include "analysis/runs/analysis_report.h"
#include "app/gui/analysis_controller.h"
#include "app/gui/jobs/job_bar.h"
#include "app/gui/panels/analysis_beyond_view.h"
#include "app/gui/panels/analysis_guidance_view.h"
#include "app/gui/panels/analysis_similarity_view.h"
#include "app/gui/panels/analysis_summary_view.h"
#include "app/gui/panels/analysis_training_view.h"
#include "app/gui/panels/figure_files.h"
#include "app/gui/panels/followed_run.h"
#include "app/gui/panels/report_picker.h"
#include "app/gui/panels/run_reports.h"
#include "figures/analysis_figures.h"
#include "figures/figure_catalog.h"
#include "widgets/plots/violin_grid.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStackedLayout>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>

namespace attnlab::app {

AnalysisPanel::AnalysisPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(4, 4, 4, 4);
  outer->setSpacing(4);
  outer->addLayout(buildToolbar());
  outer->addWidget(buildSummary());

  // The placeholder while there is no report, else the views.
  m_stack = new QStackedLayout;
  outer->addLayout(m_stack, 1);
  m_placeholder = new QLabel(this);
  m_placeholder->setObjectName(QStringLiteral("analysisPlaceholder"));
  m_placeholder->setAlignment(Qt::AlignCenter);
  m_placeholder->setWordWrap(true);
  m_stack->addWidget(m_placeholder);
  m_stack->addWidget(buildViews());

  connectControls();
  rescan();
}

// Report, Open report..., Run analysis with its Options..., the violins' statistic, Export.
QHBoxLayout* AnalysisPanel::buildToolbar() {
  auto* bar = new QHBoxLayout;
  m_picker = new ReportPicker(analysis::ReportKind::Attention, QStringLiteral("analysisReportBox"),
                              QStringLiteral("openAnalysisButton"), this);
  bar->addWidget(m_picker);
  m_jobBar = new JobBar(QStringLiteral("Run analysis"), QStringLiteral("analysis"), this);
  m_jobBar->runButton()->setToolTip(QStringLiteral(
      "Analyse the latest checkpoint on the run's validation split, as attnlab-cli analyze "
      "does; the report goes to <run>/analysis/step-S/"));
  bar->addWidget(m_jobBar);
  m_runOptions = new AnalysisRunOptionsButton(this);
  bar->addWidget(m_runOptions);
  bar->addSpacing(16);
  bar->addWidget(new QLabel(QStringLiteral("Violins"), this));
  m_statisticBox = new QComboBox(this);
  m_statisticBox->setObjectName(QStringLiteral("analysisStatisticBox"));
  m_statisticBox->addItem(QStringLiteral("Attention entropy (RealFormer Fig. 4)"));
  m_statisticBox->addItem(QStringLiteral("Adjacent-layer JSD (RealFormer Fig. 6)"));
  bar->addWidget(m_statisticBox);
  m_exportButton = newExportFigureButton(QStringLiteral("exportAnalysisFigureButton"), this);
  m_exportButton->setToolTip(
      QStringLiteral("PNG, SVG or PDF of the view shown, as attnlab-cli export --figure draws it"));
  bar->addWidget(m_exportButton);
  bar->addStretch(1);
  return bar;
}

// The line under the toolbar: which report is shown, or what went wrong.
QLabel* AnalysisPanel::buildSummary() {
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("analysisSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::PlainText);  // "<s> and </s>" would read as strikethrough
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return m_summary;
}

// The eight views, one tab each, in View's order.
QTabWidget* AnalysisPanel::buildViews() {
  m_views = new QTabWidget(this);
  m_views->setObjectName(QStringLiteral("analysisViews"));
  m_violins = new widgets::ViolinGrid(m_views);
  m_violins->setObjectName(QStringLiteral("analysisViolins"));
  m_violins->setMinimumHeight(240);
  m_summaryView = new AnalysisSummaryView(m_views);
  m_similarityView = new AnalysisSimilarityView(m_views);
  m_guidanceView = new AnalysisGuidanceView(m_views);
  m_trainingView = new AnalysisTrainingView(m_views);
  m_views->addTab(m_violins, QStringLiteral("Violins"));
  m_views->addTab(m_summaryView, QStringLiteral("Head summaries"));
  m_views->addTab(m_similarityView, QStringLiteral("Head similarity"));
  m_views->addTab(m_guidanceView, QStringLiteral("Guidance conformity"));
  m_views->addTab(m_trainingView, QStringLiteral("Over training"));
  addBeyondViews();
  m_views->setTabToolTip(0, QStringLiteral("RealFormer Figs. 4 and 6: entropy or adjacent-layer "
                                           "JSD per head (the Violins box picks which)"));
  m_views->setTabToolTip(1, QStringLiteral("Clark et al. 2019 Fig. 2: attention to special "
                                           "tokens per head, as a sortable table and by layer"));
  m_views->setTabToolTip(2, QStringLiteral("JSD between every two heads, and Clark et al.'s "
                                           "2-D map of the heads (classical MDS)"));
  m_views->setTabToolTip(3, QStringLiteral("Distance of each head to the attention-guidance "
                                           "patterns (0 = follows the pattern)"));
  m_views->setTabToolTip(4, QStringLiteral("Per-head median entropy and JSD against training "
                                           "step, with a step slider"));
  return m_views;
}

// Rollout, norms and the logit lens (the corpus summaries beyond the weights), then the heads.
void AnalysisPanel::addBeyondViews() {
  m_rolloutView = new AnalysisBeyondView(AnalysisBeyondView::Kind::Rollout, m_views);
  m_normsView = new AnalysisBeyondView(AnalysisBeyondView::Kind::Norms, m_views);
  m_lensView = new AnalysisBeyondView(AnalysisBeyondView::Kind::Lens, m_views);
  m_views->addTab(m_rolloutView, QStringLiteral("Rollout"));
  m_views->addTab(m_normsView, QStringLiteral("Weights vs norms"));
  m_views->addTab(m_lensView, QStringLiteral("Logit lens"));
  m_views->setTabToolTip(5, QStringLiteral("Attention rollout (Abnar & Zuidema 2020) per layer: "
                                           "how far it spreads from the diagonal"));
  m_views->setTabToolTip(6, QStringLiteral("Kobayashi et al. 2020: do the weights predict the "
                                           "norms of what they mix? Pearson r per head"));
  m_views->setTabToolTip(7, QStringLiteral("The MLM head on every layer at masked positions: "
                                           "accuracy, rank, KL to the output"));
  m_headImportanceView = new AnalysisBeyondView(AnalysisBeyondView::Kind::HeadImportance, m_views);
  m_pruningView = new AnalysisBeyondView(AnalysisBeyondView::Kind::Pruning, m_views);
  m_views->addTab(m_headImportanceView, QStringLiteral("Heads"));
  m_views->addTab(m_pruningView, QStringLiteral("Pruning"));
  m_views->setTabToolTip(8, QStringLiteral("Michel et al. 2019: each head's importance (the "
                                           "loss's gradient by its gate) and the loss with it "
                                           "masked (analyze --heads)"));
  m_views->setTabToolTip(9, QStringLiteral("MLM loss and accuracy as heads are masked, least "
                                           "important first, against random orders"));
}

std::vector<AnalysisView*> AnalysisPanel::reportViews() const {
  return {m_summaryView, m_similarityView, m_guidanceView,       m_trainingView, m_rolloutView,
          m_normsView,   m_lensView,       m_headImportanceView, m_pruningView};
}

void AnalysisPanel::connectControls() {
  connect(m_picker, &ReportPicker::picked, this, &AnalysisPanel::openReport);
  connect(m_views, &QTabWidget::currentChanged, this, &AnalysisPanel::updateExportButton);
  for (AnalysisView* v : reportViews())
    connect(v, &AnalysisView::figureChanged, this, &AnalysisPanel::updateExportButton);
  connect(m_statisticBox, &QComboBox::currentIndexChanged, this, [this](int index) {
    setStatistic(index == 1 ? Statistic::AdjacentJsd : Statistic::Entropy);
  });
  connect(m_exportButton, &QPushButton::clicked, this, &AnalysisPanel::chooseExport);
  connect(m_jobBar, &JobBar::runClicked, this, &AnalysisPanel::runClicked);
}

void AnalysisPanel::runClicked() {
  if (!m_run || !m_controller) return;
  QString problem = m_runOptions->options().problem();
  QPointer<AnalysisPanel> self(this);
  if (problem.isEmpty() &&
      m_controller->start(m_run->directory(), std::nullopt, m_controller->threadsNow(), &problem,
                          runOptions(), [self](const ReportJobEnd& end) {
                            if (self) self->analysisFinished(end);
                          })) {
    m_jobBar->markStarted();
    return;
  }
  m_summary->setText(QStringLiteral("Cannot run the analysis: %1").arg(problem));
}

AnalysisPanel::~AnalysisPanel() = default;

AnalysisRunOptions AnalysisPanel::runOptions() const {
  return m_runOptions->options();
}

QStringList AnalysisPanel::reportFiles() const {
  return m_picker->files();
}

QStringList AnalysisPanel::findReports(const QString& runDirectory) {
  return runReports(runDirectory, analysis::ReportKind::Attention);
}

void AnalysisPanel::setRuns(const QList<RunSession*>& runs) {
  if (followReportsOfFirstRun(runs, m_run, *m_jobBar, *m_picker)) rescan();
}

void AnalysisPanel::setAnalysisController(AnalysisController* controller) {
  m_controller = controller;
  m_jobBar->setRunner(controller ? controller->runner() : nullptr);
}

void AnalysisPanel::analysisFinished(const ReportJobEnd& end) {
  if (end.ok) {
    m_reportPath.clear();  // show the new report even if an older one of that step was shown
    rescan();
    openReport(end.reportPath);
  } else if (end.cancelled) {
    m_summary->setText(QStringLiteral("Analysis cancelled; nothing was written."));
  } else {
    m_summary->setText(QStringLiteral("The analysis failed: %1").arg(end.message));
  }
}

void AnalysisPanel::setTheme(const widgets::Theme& theme) {
  m_theme = theme;
  m_violins->setTheme(theme);
  for (AnalysisView* v : reportViews()) v->setTheme(theme);
}

QTableWidget* AnalysisPanel::headTable() const {
  return m_summaryView->table();
}

void AnalysisPanel::setView(View view) {
  m_views->setCurrentIndex(static_cast<int>(view));
}

AnalysisPanel::View AnalysisPanel::view() const {
  return static_cast<View>(std::max(0, m_views->currentIndex()));
}

void AnalysisPanel::rescan() {
  m_picker->rescan();
  // The newest analysis, unless the one shown belongs to this run already.
  if (m_picker->select(m_reportPath)) return;
  if (!m_picker->files().isEmpty()) {
    openReport(m_picker->files().last());
    return;
  }
  if (m_reportPath.isEmpty() || m_run) {
    m_report.reset();
    m_reportPath.clear();
    m_summary->clear();
    m_placeholder->setText(
        m_run ? QStringLiteral("%1 has no analysis yet.\nRun `attnlab-cli analyze %2` (it writes "
                               "%2/analysis/step-S/analysis.json), or open a report.")
                    .arg(m_run->name(), m_run->directory())
              : QStringLiteral("Select a run, or open an analysis report (analysis.json)."));
    m_stack->setCurrentWidget(m_placeholder);
  }
}

void AnalysisPanel::openReport(const QString& path) {
  m_summary->setText(QStringLiteral("Reading %1 ...").arg(path));
  loadReport<analysis::AnalysisReport>(
      m_loads, this, path, [](const std::string& p) { return analysis::readAnalysisJson(p); },
      [this, path](std::shared_ptr<analysis::AnalysisReport> report, const QString& error) {
        if (report)
          showReport(std::move(report), path);
        else
          showFailure(error);
      });
}

void AnalysisPanel::showReport(std::shared_ptr<analysis::AnalysisReport> report,
                               const QString& path) {
  m_report = std::move(report);
  m_reportPath = path;
  const analysis::AnalysisReport& r = *m_report;
  const auto& s = r.statistics;
  m_summary->setText(
      QStringLiteral("%1, checkpoint step %2: %3 sequences of %4 (%5 x %6 heads, JSD in %7)")
          .arg(QString::fromStdString(r.source.runName))
          .arg(r.source.step)
          .arg(r.evaluationSequences)
          .arg(QString::fromStdString(r.evaluationDescription))
          .arg(s.layers)
          .arg(s.heads)
          .arg(s.jsdBase == analysis::LogBase::Bits ? QStringLiteral("bits")
                                                    : QStringLiteral("nats")));
  m_summary->setToolTip(path);
  drawViolins();
  ShownReport shown{m_report, m_reportPath, runName()};
  for (AnalysisView* v : reportViews()) v->setReport(shown);
  m_stack->setCurrentIndex(1);
  updateExportButton();
  emit reportLoaded(path);
}

void AnalysisPanel::showFailure(const QString& message) {
  m_summary->setText(QStringLiteral("Cannot show the analysis: %1").arg(message));
  emit loadFailed(message);
}

void AnalysisPanel::setStatistic(Statistic statistic) {
  m_statistic = statistic;
  const int index = statistic == Statistic::AdjacentJsd ? 1 : 0;
  if (m_statisticBox->currentIndex() != index) m_statisticBox->setCurrentIndex(index);
  drawViolins();
  m_trainingView->setAdjacentJsd(statistic == Statistic::AdjacentJsd);
  updateExportButton();
}

std::string AnalysisPanel::runName() const {
  if (!m_report) return {};
  return m_report->source.runName.empty() ? QFileInfo(m_reportPath).dir().dirName().toStdString()
                                          : m_report->source.runName;
}

void AnalysisPanel::drawViolins() {
  if (!m_report) return;
  // The figures' own drawing (what attnlab-cli export writes), titles included.
  try {
    if (m_statistic == Statistic::AdjacentJsd)
      figures::drawJsdViolins(*m_violins, *m_report, runName(), m_reportPath.toStdString());
    else
      figures::drawEntropyViolins(*m_violins, *m_report, runName(), m_reportPath.toStdString());
    m_violinsDrawn = true;
  } catch (const std::exception& e) {
    m_violins->setSummaries(0, 0, {});
    m_violins->setTitle(QString::fromStdString(e.what()));
    m_violinsDrawn = false;
  }
}

AnalysisView* AnalysisPanel::currentView() const {
  return qobject_cast<AnalysisView*>(m_views->currentWidget());
}

void AnalysisPanel::updateExportButton() {
  m_exportButton->setEnabled(m_report && !currentFigureName().isEmpty());
  const bool violins = view() == View::Violins || view() == View::OverTraining;
  m_statisticBox->setEnabled(violins);
}

QString AnalysisPanel::currentFigureName() const {
  if (AnalysisView* v = currentView()) return v->figureName();
  if (!m_violinsDrawn) return {};
  return m_statistic == Statistic::AdjacentJsd ? QStringLiteral("jsd-violins")
                                               : QStringLiteral("entropy-violins");
}

qint64 AnalysisPanel::currentFigureStep() const {
  return m_report ? m_report->source.step : -1;
}

QString AnalysisPanel::exportFigure(const QString& path) {
  if (!m_report) return QStringLiteral("no report is shown");
  const QString figure = currentFigureName();
  if (figure.isEmpty()) return QStringLiteral("this view has nothing to export");
  AnalysisView* v = currentView();
  if (v && !v->exportsCatalogFigure()) {
    // The view narrowed the catalog figure (one guidance pattern): write the plot shown, at
    // the figure's size, through the same export path.
    widgets::ExportOptions options;
    if (const figures::FigureSpec* spec = figures::findFigure(figure.toStdString())) {
      options.widthPx = spec->widthPx;
      options.heightPx = spec->heightPx;
    }
    return exportPlotFile(v->shownPlot(), path, options);
  }
  return exportCatalogFigure(figure.toStdString(), m_report->source.runDir, m_report->source.step,
                             path);
}

void AnalysisPanel::chooseExport() {
  askAndExportFigure(this, m_run ? m_run->directory() : QString(),
                     currentFigureName() + QStringLiteral(".png"));
}

QString AnalysisPanel::exportCurrentFigure(const QString& path,
                                           const widgets::ExportOptions& options) {
  (void)options;  // the catalog figure at its own size, as attnlab-cli export writes it
  return exportFigure(path);
}

}  // namespace attnlab::app
