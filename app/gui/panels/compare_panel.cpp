#include "app/gui/panels/compare_panel.h"

#include "app/gui/analysis_controller.h"
#include "app/gui/jobs/job_bar.h"
#include "app/gui/panels/figure_files.h"
#include "app/gui/panels/figure_view.h"
#include "figures/figure_catalog.h"
#include "widgets/plots/plot_widget.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <memory>

namespace attnlab::app {
namespace {

constexpr const char* kSidePrefix = "side:";

// The comparisons offered, in the order a person compares runs: curves first, then the
// papers' comparisons.
struct Comparison {
  const char* key;
  const char* label;
};
constexpr Comparison kComparisons[] = {
    {"loss-curves", "Loss curves, runs overlaid"},
    {"guidance-fig3", "MLM loss, guided vs unguided (attention guidance Fig. 3)"},
    {"realformer-fig4", "Entropy violins on one scale (RealFormer Fig. 4)"},
    {"realformer-fig6", "Adjacent-layer JSD violins on one scale (RealFormer Fig. 6)"},
    {"guidance-table8", "Coreference best head and mean per run (attention guidance Table 8)"},
    {"side:asa-fig5", "ASA masking proportion, runs side by side (ASA Fig. 5)"},
    {"side:sesame-fig4", "SesameBERT layer weights, runs side by side (SesameBERT Fig. 4)"},
    {"rollout-spread", "Attention rollout per layer, runs overlaid (spread, diagonal, entropy)"},
    {"logit-lens", "Logit lens per layer, runs overlaid (accuracy, rank, KL to the output)"},
    {"side:norm-weight-correlation", "Weights against norms per head, runs side by side"},
    {"side:head-importance", "Head importance and single-head ablation, runs side by side"},
    {"head-pruning", "Pruning curves, runs overlaid (loss and accuracy against heads masked)"},
    {"heads-matching", "Heads of the first two runs matched by attention JSD (Compare heads)"},
    {"layer-cka", "Linear CKA between the first two runs' layers (Compare heads)"},
};

QTableWidgetItem* numberItem(double value, int decimals) {
  auto* item = new QTableWidgetItem;
  if (std::isfinite(value)) {
    // Display role as a number: the column sorts by value, not as text.
    item->setData(Qt::DisplayRole,
                  std::round(value * std::pow(10.0, decimals)) / std::pow(10.0, decimals));
  } else {
    item->setText(QStringLiteral("-"));
  }
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

QTableWidgetItem* textItem(const QString& text) {
  return new QTableWidgetItem(text);
}

// The table's columns: the run, what it reached, the probe, then one per layer.
QStringList tableHeaders(std::size_t layers) {
  QStringList headers{QStringLiteral("Run"),
                      QStringLiteral("Mechanisms"),
                      QStringLiteral("Last step"),
                      QStringLiteral("Eval loss (nats)"),
                      QStringLiteral("Eval accuracy"),
                      QStringLiteral("Probe best head"),
                      QStringLiteral("Best head accuracy"),
                      QStringLiteral("Probe mean accuracy")};
  for (std::size_t l = 0; l < layers; ++l)
    headers << QStringLiteral("Median entropy L%1 (nats)").arg(l);
  return headers;
}

// Each run's summary (figures/run_summary.h); a run that cannot be read gets a row that says
// why. Runs on the thread pool.
std::vector<figures::RunSummary> summariseRuns(const QStringList& dirs) {
  std::vector<figures::RunSummary> rows;
  for (const QString& dir : dirs) {
    try {
      rows.push_back(figures::summariseRun(dir.toStdString()));
    } catch (const std::exception& e) {
      figures::RunSummary failed;
      failed.runDir = dir.toStdString();
      failed.runName = QFileInfo(dir).fileName().toStdString();
      failed.notes.push_back(e.what());
      rows.push_back(std::move(failed));
    }
  }
  return rows;
}

}  // namespace

ComparePanel::ComparePanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Compare"), this));
  m_comparison = new QComboBox(this);
  m_comparison->setObjectName(QStringLiteral("comparisonBox"));
  for (const Comparison& c : kComparisons)
    m_comparison->addItem(QString::fromLatin1(c.label), QString::fromLatin1(c.key));
  bar->addWidget(m_comparison, 1);
  m_jobBar = new JobBar(QStringLiteral("Compare heads"), QStringLiteral("compareHeads"), this);
  m_jobBar->runButton()->setToolTip(
      QStringLiteral("attnlab-cli compare A B --heads on the first two runs' latest checkpoints: "
                     "head JSD, matching and layer CKA on run A's validation split"));
  bar->addWidget(m_jobBar);
  m_tableExport = new QPushButton(QStringLiteral("Export table..."), this);
  m_tableExport->setObjectName(QStringLiteral("exportTableButton"));
  m_tableExport->setToolTip(QStringLiteral("The table as CSV or Markdown"));
  bar->addWidget(m_tableExport);
  outer->addLayout(bar);
  m_jobMessage = new QLabel(this);
  m_jobMessage->setObjectName(QStringLiteral("compareHeadsMessage"));
  m_jobMessage->setWordWrap(true);
  m_jobMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_jobMessage->hide();
  outer->addWidget(m_jobMessage);

  m_stack = new QStackedWidget(this);
  m_hint = new QLabel(QStringLiteral("Select two or more runs in the Runs list (Ctrl+click or "
                                     "Shift+click) to compare them here."),
                      this);
  m_hint->setObjectName(QStringLiteral("compareHint"));
  m_hint->setAlignment(Qt::AlignCenter);
  m_hint->setWordWrap(true);
  m_stack->addWidget(m_hint);

  auto* split = m_split = new QSplitter(Qt::Vertical, this);
  m_table = new QTableWidget(this);
  m_table->setObjectName(QStringLiteral("compareTable"));
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->verticalHeader()->hide();
  split->addWidget(m_table);
  m_figureArea = new QWidget(this);
  m_figureLayout = new QHBoxLayout(m_figureArea);
  m_figureLayout->setContentsMargins(0, 0, 0, 0);
  split->addWidget(m_figureArea);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 3);
  m_stack->addWidget(split);
  outer->addWidget(m_stack, 1);

  connect(m_comparison, &QComboBox::currentIndexChanged, this, [this] { rebuildFigures(); });
  connect(m_tableExport, &QPushButton::clicked, this, &ComparePanel::chooseTableExport);
  connect(m_jobBar, &JobBar::runClicked, this, &ComparePanel::compareHeads);
  refresh();
}

ComparePanel::~ComparePanel() = default;

void ComparePanel::setRuns(const QList<RunSession*>& runs) {
  QList<QPointer<RunSession>> next;
  for (RunSession* r : runs) next << QPointer<RunSession>(r);
  if (next == m_runs) return;
  m_runs = next;
  refresh();
}

void ComparePanel::setTheme(const widgets::Theme& theme) {
  m_theme = theme;
  for (FigureView* v : m_views) v->setTheme(theme);
}

void ComparePanel::setAnalysisController(AnalysisController* controller) {
  m_controller = controller;
  m_jobBar->setRunner(controller ? controller->runner() : nullptr);
}

void ComparePanel::compareHeads() {
  if (!m_controller || m_runs.size() < 2 || !m_runs[0] || !m_runs[1]) return;
  QString whyNot;
  QPointer<ComparePanel> self(this);
  if (!m_controller->startHeadComparison(m_runs[0]->directory(), m_runs[1]->directory(), &whyNot,
                                         [self](const ReportJobEnd& end) {
                                           if (self) self->headsCompared(end);
                                         })) {
    m_jobMessage->setText(whyNot);
    m_jobMessage->show();
    return;
  }
  m_jobBar->markStarted();
  m_jobMessage->hide();
}

void ComparePanel::headsCompared(const ReportJobEnd& end) {
  if (end.ok) {
    m_jobMessage->setText(QStringLiteral("Wrote %1").arg(end.reportPath));
    // Already on one of the two views the report feeds: redraw it; else show the matching.
    const QString shown = currentComparison();
    if (shown == QStringLiteral("heads-matching") || shown == QStringLiteral("layer-cka"))
      rebuildFigures();
    else
      showComparison(QStringLiteral("heads-matching"));
  } else {
    m_jobMessage->setText(end.cancelled
                              ? QStringLiteral("Compare heads: cancelled")
                              : QStringLiteral("Compare heads failed: %1").arg(end.message));
  }
  m_jobMessage->show();
}

void ComparePanel::refresh() {
  const bool enough = m_runs.size() >= 2;
  m_jobBar->setRunnable(enough);
  m_stack->setCurrentIndex(enough ? 1 : 0);
  m_tableExport->setEnabled(enough);
  m_comparison->setEnabled(enough);
  if (!enough) {
    m_summaryLoads.dropAll();
    m_summaries.clear();
    m_table->clear();
    m_table->setRowCount(0);
    for (FigureView* v : m_views) v->deleteLater();
    m_views.clear();
    return;
  }
  loadSummaries();
  rebuildFigures();
}

// A 12 x 12 analysis.json with its pairwise matrix is megabytes: the summaries are read on
// the thread pool and land here only if the selection has not changed meanwhile.
void ComparePanel::loadSummaries() {
  QStringList dirs;
  for (const auto& r : m_runs)
    if (r) dirs << r->directory();
  m_summaryLoads.run<std::vector<figures::RunSummary>>(
      this, [dirs] { return summariseRuns(dirs); },
      [this](std::shared_ptr<std::vector<figures::RunSummary>> rows, const QString&) {
        if (!rows) return;  // summariseRuns notes each run's failure in its row instead
        m_summaries = std::move(*rows);
        fillTable();
        emit summariesReady();
      });
}

void ComparePanel::fillTable() {
  std::size_t layers = 0;
  for (const auto& s : m_summaries) layers = std::max(layers, s.medianEntropyPerLayer.size());
  m_table->setSortingEnabled(false);
  m_table->clear();
  const QStringList headers = tableHeaders(layers);
  m_table->setColumnCount(static_cast<int>(headers.size()));
  m_table->setHorizontalHeaderLabels(headers);
  m_table->setRowCount(static_cast<int>(m_summaries.size()));
  for (int row = 0; row < static_cast<int>(m_summaries.size()); ++row)
    fillRow(row, m_summaries[static_cast<std::size_t>(row)], layers);
  m_table->setSortingEnabled(true);
  m_table->resizeColumnsToContents();
  fitTableHeight();
}

// One run: its name in its sidebar colour (its folder and any notes as the tooltip), then the
// columns of tableHeaders.
void ComparePanel::fillRow(int row, const figures::RunSummary& s, std::size_t layers) {
  auto* name = textItem(QString::fromStdString(s.runName));
  for (const auto& r : m_runs)
    if (r && r->directory().toStdString() == s.runDir) name->setForeground(r->colour());
  QStringList notes;
  for (const auto& n : s.notes) notes << QString::fromStdString(n);
  name->setToolTip(QString::fromStdString(s.runDir) +
                   (notes.isEmpty() ? QString() : QStringLiteral("\n") + notes.join('\n')));
  m_table->setItem(row, 0, name);
  QStringList mechanisms;
  for (const auto& m : s.mechanisms) mechanisms << QString::fromStdString(m);
  m_table->setItem(row, 1,
                   textItem(mechanisms.isEmpty() ? QStringLiteral("baseline")
                                                 : mechanisms.join(QStringLiteral(", "))));
  m_table->setItem(row, 2, numberItem(s.lastStep >= 0 ? double(s.lastStep) : NAN, 0));
  m_table->setItem(row, 3, numberItem(s.finalEvalLoss.value_or(NAN), 4));
  m_table->setItem(row, 4, numberItem(s.finalEvalAccuracy.value_or(NAN), 4));
  m_table->setItem(row, 5,
                   textItem(s.probeStep ? QString::fromStdString(
                                              figures::headName(s.probeBestLayer, s.probeBestHead))
                                        : QStringLiteral("-")));
  m_table->setItem(row, 6, numberItem(s.probeStep ? s.probeBestAccuracy : NAN, 3));
  m_table->setItem(row, 7, numberItem(s.probeStep ? s.probeMeanAccuracy : NAN, 3));
  for (std::size_t l = 0; l < layers; ++l)
    m_table->setItem(
        row, 8 + static_cast<int>(l),
        numberItem(l < s.medianEntropyPerLayer.size() ? s.medianEntropyPerLayer[l] : NAN, 3));
}

// Every run's row visible without scrolling (up to eight); the figure takes the rest.
void ComparePanel::fitTableHeight() {
  int height = m_table->horizontalHeader()->height() + 2 * m_table->frameWidth() +
               m_table->horizontalScrollBar()->sizeHint().height();
  for (int row = 0; row < std::min(8, m_table->rowCount()); ++row)
    height += m_table->rowHeight(row);
  const int total = m_split->height() > 0 ? m_split->height() : 600;
  m_split->setSizes({height, std::max(200, total - height)});
}

bool ComparePanel::showComparison(const QString& key) {
  const int index = m_comparison->findData(key);
  if (index < 0) return false;
  if (index == m_comparison->currentIndex())
    rebuildFigures();
  else
    m_comparison->setCurrentIndex(index);
  return true;
}

QString ComparePanel::currentComparison() const {
  return m_comparison->currentData().toString();
}

// Figures are built on the GUI thread: they are widgets. Their reads are the run log's
// scalars and the reports (tens of milliseconds for the papers' shapes; bench_app_analysis
// measures the largest).
void ComparePanel::rebuildFigures() {
  for (FigureView* v : m_views) {
    m_figureLayout->removeWidget(v);
    v->deleteLater();
  }
  m_views.clear();
  if (m_runs.size() < 2) return;
  QStringList dirs;
  for (const auto& r : m_runs)
    if (r) dirs << r->directory();
  const QString key = currentComparison();
  auto addView = [this] {
    auto* view = new FigureView(m_figureArea);
    view->setTheme(m_theme);
    connect(view, &FigureView::exported, this, &ComparePanel::exported);
    connect(view, &FigureView::exportFailed, this, &ComparePanel::exportFailed);
    m_figureLayout->addWidget(view, 1);
    m_views << view;
    return view;
  };
  if (key.startsWith(QLatin1String(kSidePrefix))) {
    const std::string figure = key.mid(int(std::strlen(kSidePrefix))).toStdString();
    for (const QString& dir : dirs) addView()->build(figure, {dir});
    // One value axis for all: the same height means the same value in every run.
    bool any = false;
    QCPRange shared;
    for (FigureView* v : m_views) {
      if (v->plot() == nullptr) continue;
      const QCPRange r = v->plot()->customPlot()->yAxis->range();
      shared = any ? QCPRange(std::min(shared.lower, r.lower), std::max(shared.upper, r.upper)) : r;
      any = true;
    }
    for (FigureView* v : m_views) {
      if (v->plot() == nullptr) continue;
      v->plot()->customPlot()->yAxis->setRange(shared);
      v->plot()->requestReplot();
    }
  } else {
    addView()->build(key.toStdString(), dirs);
  }
  emit comparisonShown(key);
}

QString ComparePanel::exportTable(const QString& path) const {
  if (m_summaries.empty()) return QStringLiteral("the table is still being read");
  const QString suffix = QFileInfo(path).suffix().toLower();
  std::string text;
  if (suffix == QLatin1String("csv"))
    text = figures::runSummaryCsv(m_summaries);
  else if (suffix == QLatin1String("md"))
    text = figures::runSummaryMarkdown(m_summaries);
  else
    return QStringLiteral("%1: choose a .csv or .md file").arg(path);
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) ||
      file.write(text.data(), qint64(text.size())) != qint64(text.size()) || !file.commit())
    return QStringLiteral("%1: %2").arg(path, file.errorString());
  return {};
}

QString ComparePanel::exportFigure(const QString& path) const {
  if (m_views.isEmpty()) return QStringLiteral("select two or more runs to compare");
  return m_views.front()->exportTo(path, m_views.front()->defaultOptions());
}

void ComparePanel::chooseTableExport() {
  const QString start =
      m_runs.isEmpty() || !m_runs.front()
          ? QString()
          : QFileInfo(m_runs.front()->directory()).dir().filePath(QStringLiteral("comparison.csv"));
  const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export table"), start,
                                                    QStringLiteral("CSV (*.csv);;Markdown (*.md)"));
  if (path.isEmpty()) return;
  const QString error = exportTable(path);
  if (error.isEmpty())
    emit exported(path);
  else
    emit exportFailed(error);
}

QString ComparePanel::exportCurrentFigure(const QString& path,
                                          const widgets::ExportOptions& options) {
  (void)options;  // the catalog figure at its own size, as attnlab-cli export writes it
  return exportFigure(path);
}

}  // namespace attnlab::app
