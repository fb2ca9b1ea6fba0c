#include "app/gui/panels/analysis_panel.h"

#include "analysis/report/report_readers.h"
#include "analysis/runs/analysis_report.h"
#include "app/gui/analysis_controller.h"
#include "app/gui/panels/figure_files.h"
#include "app/gui/panels/job_bar.h"
#include "app/gui/panels/run_reports.h"
#include "figures/analysis_figures.h"
#include "widgets/plots/violin_grid.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStackedLayout>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>

namespace attnlab::app {

namespace {

/// A table cell that sorts by its number, not its text.
class NumberItem : public QTableWidgetItem {
 public:
  explicit NumberItem(double value, int decimals)
      : QTableWidgetItem(std::isfinite(value) ? QString::number(value, 'f', decimals)
                                              : QStringLiteral("-")) {
    setData(Qt::UserRole, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    setFlags(flags() & ~Qt::ItemIsEditable);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
  }
};

}  // namespace

AnalysisPanel::AnalysisPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(4, 4, 4, 4);
  outer->setSpacing(4);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Report"), this));
  m_reportBox = new QComboBox(this);
  m_reportBox->setObjectName(QStringLiteral("analysisReportBox"));
  m_reportBox->setMinimumContentsLength(24);
  m_reportBox->setToolTip(
      QStringLiteral("The analyses of this run (attnlab-cli analyze writes "
                     "them under <run>/analysis/step-S/)"));
  bar->addWidget(m_reportBox);
  m_openButton = new QPushButton(QStringLiteral("Open report..."), this);
  m_openButton->setObjectName(QStringLiteral("openAnalysisButton"));
  m_openButton->setToolTip(QStringLiteral("Open any analysis.json"));
  bar->addWidget(m_openButton);
  m_jobBar = new JobBar(QStringLiteral("Run analysis"), QStringLiteral("analysis"), this);
  m_jobBar->runButton()->setToolTip(QStringLiteral(
      "Analyse the latest checkpoint on the run's validation split, as attnlab-cli analyze "
      "does; the report goes to <run>/analysis/step-S/"));
  bar->addWidget(m_jobBar);
  bar->addSpacing(16);
  bar->addWidget(new QLabel(QStringLiteral("Violins"), this));
  m_statisticBox = new QComboBox(this);
  m_statisticBox->setObjectName(QStringLiteral("analysisStatisticBox"));
  m_statisticBox->addItem(QStringLiteral("Attention entropy (RealFormer Fig. 4)"));
  m_statisticBox->addItem(QStringLiteral("Adjacent-layer JSD (RealFormer Fig. 6)"));
  bar->addWidget(m_statisticBox);
  m_exportButton = new QPushButton(QStringLiteral("Export figure..."), this);
  m_exportButton->setObjectName(QStringLiteral("exportAnalysisFigureButton"));
  m_exportButton->setToolTip(
      QStringLiteral("PNG, SVG or PDF of the violins shown, as attnlab-cli export draws them"));
  m_exportButton->setEnabled(false);
  bar->addWidget(m_exportButton);
  bar->addStretch(1);
  outer->addLayout(bar);

  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("analysisSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::PlainText);  // "<s> and </s>" would read as strikethrough
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  outer->addWidget(m_summary);

  m_stack = new QStackedLayout;
  outer->addLayout(m_stack, 1);
  m_placeholder = new QLabel(this);
  m_placeholder->setObjectName(QStringLiteral("analysisPlaceholder"));
  m_placeholder->setAlignment(Qt::AlignCenter);
  m_placeholder->setWordWrap(true);
  m_stack->addWidget(m_placeholder);

  auto* split = new QSplitter(Qt::Vertical, this);
  m_violins = new widgets::ViolinGrid(split);
  m_violins->setObjectName(QStringLiteral("analysisViolins"));
  m_violins->setMinimumHeight(240);
  m_table = new QTableWidget(split);
  m_table->setObjectName(QStringLiteral("headSummaryTable"));
  m_table->setToolTip(QStringLiteral(
      "Mean attention of each head to the first token, separators, periods, the previous, "
      "next and same token (Clark et al. 2019, Fig. 2); click a column to sort"));
  m_table->verticalHeader()->setVisible(false);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  split->addWidget(m_violins);
  split->addWidget(m_table);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  m_stack->addWidget(split);

  connect(m_reportBox, &QComboBox::activated, this, [this](int index) {
    if (index >= 0 && index < m_files.size()) openReport(m_files[index]);
  });
  connect(m_statisticBox, &QComboBox::currentIndexChanged, this, [this](int index) {
    setStatistic(index == 1 ? Statistic::AdjacentJsd : Statistic::Entropy);
  });
  connect(m_openButton, &QPushButton::clicked, this, &AnalysisPanel::chooseFile);
  connect(m_exportButton, &QPushButton::clicked, this, &AnalysisPanel::chooseExport);
  connect(m_jobBar, &JobBar::runClicked, this, [this] {
    if (!m_run) return;
    emit analysisRequested(m_run);  // the window starts the controller
    m_jobBar->markStarted();
  });
  connect(m_jobBar, &JobBar::jobFinished, this, &AnalysisPanel::analysisFinished);
  rescan();
}

AnalysisPanel::~AnalysisPanel() = default;

QStringList AnalysisPanel::findReports(const QString& runDirectory) {
  return runReports(runDirectory, QStringLiteral("step-"), QStringLiteral("analysis.json"));
}

void AnalysisPanel::setRuns(const QList<RunSession*>& runs) {
  RunSession* run = runs.isEmpty() ? nullptr : runs.first();
  if (run == m_run && run != nullptr) return;
  m_run = run;
  m_jobBar->setRunnable(m_run != nullptr);
  rescan();
}

void AnalysisPanel::setAnalysisController(AnalysisController* controller) {
  m_jobBar->setController(controller);
}

void AnalysisPanel::analysisFinished(bool ok, bool cancelled, const QString& message,
                                     const QString& report) {
  if (ok) {
    m_reportPath.clear();  // show the new report even if an older one of that step was shown
    rescan();
    openReport(report);
  } else if (cancelled) {
    m_summary->setText(QStringLiteral("Analysis cancelled; nothing was written."));
  } else {
    m_summary->setText(QStringLiteral("The analysis failed: %1").arg(message));
  }
}

void AnalysisPanel::setTheme(const widgets::Theme& theme) {
  m_theme = theme;
  m_violins->setTheme(theme);
}

void AnalysisPanel::rescan() {
  m_files = m_run ? findReports(m_run->directory()) : QStringList();
  m_reportBox->clear();
  for (const QString& f : m_files) m_reportBox->addItem(QFileInfo(f).dir().dirName(), f);
  m_reportBox->setEnabled(!m_files.isEmpty());
  if (!m_files.isEmpty()) {
    // The newest analysis, unless the one shown belongs to this run already.
    const qsizetype shown = m_files.indexOf(m_reportPath);
    m_reportBox->setCurrentIndex(shown >= 0 ? static_cast<int>(shown)
                                            : static_cast<int>(m_files.size() - 1));
    if (shown < 0) openReport(m_files.last());
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
  const int request = ++m_loads;
  m_summary->setText(QStringLiteral("Reading %1 ...").arg(path));
  readReportOffThread<analysis::AnalysisReport>(
      this, path, [](const std::string& p) { return analysis::readAnalysisJson(p); },
      [this, path, request](std::shared_ptr<analysis::AnalysisReport> report,
                            const QString& error) {
        if (request != m_loads) return;  // a newer request
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
  fillTable();
  m_stack->setCurrentIndex(1);
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
}

void AnalysisPanel::drawViolins() {
  if (!m_report) return;
  // The figures' own drawing (what attnlab-cli export writes), titles included.
  const std::string runName = m_report->source.runName.empty()
                                  ? QFileInfo(m_reportPath).dir().dirName().toStdString()
                                  : m_report->source.runName;
  try {
    if (m_statistic == Statistic::AdjacentJsd)
      figures::drawJsdViolins(*m_violins, *m_report, runName, m_reportPath.toStdString());
    else
      figures::drawEntropyViolins(*m_violins, *m_report, runName, m_reportPath.toStdString());
    m_exportButton->setEnabled(true);
  } catch (const std::exception& e) {
    m_violins->setSummaries(0, 0, {});
    m_violins->setTitle(QString::fromStdString(e.what()));
    m_exportButton->setEnabled(false);
  }
}

QString AnalysisPanel::currentFigureName() const {
  return m_statistic == Statistic::AdjacentJsd ? QStringLiteral("jsd-violins")
                                               : QStringLiteral("entropy-violins");
}

QString AnalysisPanel::exportFigure(const QString& path) {
  if (!m_report) return QStringLiteral("no report is shown");
  return exportCatalogFigure(currentFigureName().toStdString(), m_report->source.runDir,
                             m_report->source.step, path);
}

void AnalysisPanel::chooseExport() {
  const QString name = currentFigureName() + QStringLiteral(".png");
  const QString path = askFigurePath(this, m_run ? QDir(m_run->directory()).filePath(name) : name);
  if (path.isEmpty()) return;
  const QString error = exportFigure(path);
  m_summary->setText(error.isEmpty() ? QStringLiteral("Exported %1").arg(path)
                                     : QStringLiteral("Export failed: %1").arg(error));
}

void AnalysisPanel::fillTable() {
  const auto& s = m_report->statistics;
  const QStringList columns = {QStringLiteral("layer"),
                               QStringLiteral("head"),
                               QStringLiteral("first"),
                               QStringLiteral("separator"),
                               QStringLiteral("period"),
                               QStringLiteral("previous"),
                               QStringLiteral("next"),
                               QStringLiteral("self"),
                               QStringLiteral("median entropy (nats)")};
  m_table->setSortingEnabled(false);
  m_table->clear();
  m_table->setColumnCount(static_cast<int>(columns.size()));
  m_table->setHorizontalHeaderLabels(columns);
  const int n = static_cast<int>(s.headSummaries.size());
  m_table->setRowCount(n);
  for (int i = 0; i < n; ++i) {
    const auto& h = s.headSummaries[static_cast<std::size_t>(i)];
    const double median = i < static_cast<int>(s.entropy.size())
                              ? s.entropy[static_cast<std::size_t>(i)].median
                              : std::nan("");
    const double values[] = {double(i / std::max(1, s.heads)),
                             double(i % std::max(1, s.heads)),
                             h.first,
                             h.separator,
                             h.period,
                             h.previous,
                             h.next,
                             h.self,
                             median};
    for (int c = 0; c < static_cast<int>(columns.size()); ++c)
      m_table->setItem(i, c, new NumberItem(values[c], c < 2 ? 0 : 3));
  }
  m_table->setSortingEnabled(true);
}

void AnalysisPanel::chooseFile() {
  const QString start =
      m_run ? QDir(m_run->directory()).filePath(QStringLiteral("analysis")) : QDir::homePath();
  const QString path = QFileDialog::getOpenFileName(
      this, QStringLiteral("Open analysis report"), start,
      QStringLiteral("Analysis reports (analysis.json);;JSON files (*.json)"));
  if (!path.isEmpty()) openReport(path);
}

}  // namespace attnlab::app
