#include "app/gui/panels/probe_panel.h"

#include "analysis/report/report_readers.h"
#include "analysis/runs/coref_probe_report.h"
#include "app/gui/jobs/job_bar.h"
#include "app/gui/panels/figure_files.h"
#include "app/gui/panels/followed_run.h"
#include "app/gui/panels/probe_examples_view.h"
#include "app/gui/panels/report_picker.h"
#include "figures/analysis_figures.h"
#include "widgets/plots/probe_matrix_plot.h"

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <exception>
#include <limits>

namespace attnlab::app {

ProbePanel::ProbePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(buildReportBar());
  layout->addLayout(buildProbeOptions());
  buildSummary(layout);
  layout->addWidget(buildResultViews(), 1);
  connectControls();
  updateOptions();
  rescan();
}

// Report, Open report..., Export figure.
QHBoxLayout* ProbePanel::buildReportBar() {
  auto* bar = new QHBoxLayout;
  m_picker = new ReportPicker(analysis::ReportKind::Coref, QStringLiteral("probeReportBox"),
                              QStringLiteral("openProbeButton"), this);
  bar->addWidget(m_picker);
  m_exportButton = newExportFigureButton(QStringLiteral("exportProbeFigureButton"), this);
  bar->addWidget(m_exportButton);
  bar->addStretch(1);
  return bar;
}

// The probe's options, as attnlab-cli probe coref takes them, and Run probe.
QHBoxLayout* ProbePanel::buildProbeOptions() {
  auto* options = new QHBoxLayout;
  buildDatasetChoice(options);
  options->addSpacing(12);
  buildSyntheticOptions(options);
  options->addSpacing(12);
  m_jobBar = new JobBar(QStringLiteral("Run probe"), QStringLiteral("probe"), this);
  options->addWidget(m_jobBar);
  return options;
}

// --dataset: typed, or a CoNLL or Lin file chosen.
void ProbePanel::buildDatasetChoice(QHBoxLayout* options) {
  options->addWidget(new QLabel(QStringLiteral("Dataset"), this));
  m_dataset = new QLineEdit(QStringLiteral("synthetic"), this);
  m_dataset->setObjectName(QStringLiteral("probeDataset"));
  m_dataset->setToolTip(QStringLiteral(
      "synthetic (reflexives, Lin et al.'s grammar), conll:PATH (CoNLL-2012) or lin:PATH "
      "(Lin et al.'s released refl.N files), as attnlab-cli probe coref --dataset"));
  m_dataset->setMinimumWidth(200);
  options->addWidget(m_dataset, 1);
  m_conllButton = new QPushButton(QStringLiteral("CoNLL file..."), this);
  m_conllButton->setObjectName(QStringLiteral("probeConllButton"));
  m_conllButton->setToolTip(QStringLiteral("A CoNLL-2012 file (*_conll): --dataset conll:PATH"));
  options->addWidget(m_conllButton);
  m_linButton = new QPushButton(QStringLiteral("Lin file..."), this);
  m_linButton->setObjectName(QStringLiteral("probeLinButton"));
  m_linButton->setToolTip(
      QStringLiteral("One of Lin et al.'s reflexive files (refl.0 .. refl.8): --dataset lin:PATH"));
  options->addWidget(m_linButton);
}

// --size, --seed, --distractor: they shape the generated data only (updateOptions).
void ProbePanel::buildSyntheticOptions(QHBoxLayout* options) {
  options->addWidget(new QLabel(QStringLiteral("Size"), this));
  m_size = new QSpinBox(this);
  m_size->setObjectName(QStringLiteral("probeSize"));
  m_size->setRange(1, 10000000);  // as the CLI's --size
  m_size->setValue(1000);
  m_size->setToolTip(QStringLiteral("Synthetic sentences to generate (--size)"));
  options->addWidget(m_size);
  options->addWidget(new QLabel(QStringLiteral("Seed"), this));
  m_seed = new QSpinBox(this);
  m_seed->setObjectName(QStringLiteral("probeSeed"));
  m_seed->setRange(0, std::numeric_limits<int>::max());
  m_seed->setValue(1);
  m_seed->setToolTip(QStringLiteral("Seed of the synthetic data (--seed)"));
  options->addWidget(m_seed);
  m_distractor = new QCheckBox(QStringLiteral("Distractor"), this);
  m_distractor->setObjectName(QStringLiteral("probeDistractor"));
  m_distractor->setToolTip(
      QStringLiteral("Synthetic: put a distractor phrase before each sentence (--distractor)"));
  options->addWidget(m_distractor);
}

// Which report is shown (or what went wrong), and what the probe skipped.
void ProbePanel::buildSummary(QVBoxLayout* layout) {
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("probeSummary"));
  m_skipped = new QLabel(this);
  m_skipped->setObjectName(QStringLiteral("probeSkipped"));
  m_skipped->setVisible(false);
  for (QLabel* label : {m_summary, m_skipped}) {
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);  // "<s> and </s>" would read as strikethrough
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(label);
  }
}

// The accuracy matrix beside the summary table, the examples of a clicked head below.
QSplitter* ProbePanel::buildResultViews() {
  auto* split = new QSplitter(Qt::Vertical, this);
  auto* top = new QSplitter(Qt::Horizontal, split);
  m_matrix = new widgets::ProbeMatrixPlot(top);
  m_matrix->setObjectName(QStringLiteral("probeMatrix"));
  m_matrix->setMinimumHeight(240);
  m_matrix->setToolTip(QStringLiteral("Click a head to list the examples it gets right and wrong"));
  m_table = new QTableWidget(top);
  m_table->setObjectName(QStringLiteral("probeSummaryTable"));
  m_table->verticalHeader()->setVisible(false);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->setMinimumWidth(300);  // "best head (layer L, head H)" and its accuracy
  top->addWidget(m_matrix);
  top->addWidget(m_table);
  top->setStretchFactor(0, 3);
  top->setStretchFactor(1, 1);
  m_examples = new ProbeExamplesView(split);
  m_examples->setObjectName(QStringLiteral("probeExamplesView"));
  split->addWidget(top);
  split->addWidget(m_examples);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  return split;
}

void ProbePanel::connectControls() {
  connect(m_matrix, &widgets::ProbeMatrixPlot::headClicked, this, [this](int layer, int head) {
    m_matrix->setSelectedHead(layer, head);
    m_examples->setHead(layer, head);
  });
  connect(m_dataset, &QLineEdit::textChanged, this, &ProbePanel::updateOptions);
  connect(m_conllButton, &QPushButton::clicked, this,
          [this] { chooseDataFile(QStringLiteral("conll:")); });
  connect(m_linButton, &QPushButton::clicked, this,
          [this] { chooseDataFile(QStringLiteral("lin:")); });
  connect(m_picker, &ReportPicker::picked, this, &ProbePanel::openReport);
  connect(m_exportButton, &QPushButton::clicked, this, &ProbePanel::chooseExport);
  connect(m_jobBar, &JobBar::runClicked, this, &ProbePanel::runProbe);
}

void ProbePanel::runProbe() {
  if (!m_run || !m_controller) return;
  QString whyNot;
  QPointer<ProbePanel> self(this);
  if (!m_controller->startProbe(m_run->directory(), request(), &whyNot,
                                [self](const ReportJobEnd& end) {
                                  if (self) self->probeFinished(end);
                                })) {
    m_summary->setText(QStringLiteral("Cannot run the probe: %1").arg(whyNot));
    return;
  }
  m_jobBar->markStarted();
}

void ProbePanel::probeFinished(const ReportJobEnd& end) {
  if (end.ok) {
    rescan();
    openReport(end.reportPath);
  } else {
    m_summary->setText(end.cancelled ? QStringLiteral("Probe cancelled; nothing was written.")
                                     : QStringLiteral("The probe failed: %1").arg(end.message));
  }
}

ProbePanel::~ProbePanel() = default;

void ProbePanel::setRuns(const QList<RunSession*>& runs) {
  if (followReportsOfFirstRun(runs, m_run, *m_jobBar, *m_picker)) rescan();
}

QStringList ProbePanel::reportFiles() const {
  return m_picker->files();
}

void ProbePanel::setAnalysisController(AnalysisController* controller) {
  m_controller = controller;
  m_jobBar->setRunner(controller ? controller->runner() : nullptr);
}

QString ProbePanel::dataset() const {
  return m_dataset->text().trimmed();
}

ProbeRequest ProbePanel::request() const {
  ProbeRequest r;
  r.dataset = dataset();
  r.size = m_size->value();
  r.seed = static_cast<std::uint64_t>(m_seed->value());
  r.distractor = m_distractor->isChecked();
  return r;
}

void ProbePanel::updateOptions() {
  // Size, seed and distractor shape the generated data only; a file's data is the file's.
  const bool synthetic = dataset() == QStringLiteral("synthetic");
  for (QWidget* w : {static_cast<QWidget*>(m_size), static_cast<QWidget*>(m_seed),
                     static_cast<QWidget*>(m_distractor)})
    w->setEnabled(synthetic);
}

void ProbePanel::chooseDataFile(const QString& prefix) {
  const bool conll = prefix == QStringLiteral("conll:");
  const QString current = dataset();
  const QString start = current.startsWith(prefix) ? current.mid(prefix.size()) : QDir::homePath();
  const QString path = QFileDialog::getOpenFileName(
      this,
      conll ? QStringLiteral("CoNLL-2012 file for the probe")
            : QStringLiteral("Lin et al.'s reflexive file for the probe"),
      start,
      conll ? QStringLiteral("CoNLL-2012 files (*_conll *.conll);;All files (*)")
            : QStringLiteral("Reflexive files (refl.* *.tsv *.txt);;All files (*)"));
  if (!path.isEmpty()) m_dataset->setText(prefix + path);
}

void ProbePanel::setTheme(const widgets::Theme& theme) {
  m_matrix->setTheme(theme);
  m_examples->setTheme(theme);
}

void ProbePanel::rescan() {
  m_picker->rescan();
  if (!m_picker->files().isEmpty()) {
    openReport(m_picker->files().last());  // the newest probe
  } else if (m_run) {
    m_summary->setText(QStringLiteral("%1 has no coreference probe yet. Run `attnlab-cli probe "
                                      "coref %2` (synthetic reflexives, conll:PATH or lin:PATH), "
                                      "or open a coref.json.")
                           .arg(m_run->name(), m_run->directory()));
  }
}

void ProbePanel::openReport(const QString& path) {
  m_summary->setText(QStringLiteral("Reading %1 ...").arg(path));
  const auto read = [](const std::string& p) { return analysis::readCorefJson(p); };
  const NewestWins::Ticket request = m_loads.next();
  loadReportFor<analysis::CorefProbeReport>(
      m_loads, request, this, path, read,
      [this, path, request](std::shared_ptr<analysis::CorefProbeReport> report,
                            const QString& error) {
        if (report) {
          showReport(std::move(report), path);
          loadExamples(path, request);
        } else {
          m_summary->setText(QStringLiteral("Cannot show the probe: %1").arg(error));
          emit loadFailed(error);
        }
      });
}

// The report's kept examples (coref_examples.json beside it), read for the same request: a
// report asked for meanwhile drops them.
void ProbePanel::loadExamples(const QString& reportPath, NewestWins::Ticket request) {
  m_kept.reset();
  const QString path = QFileInfo(reportPath).dir().filePath(QStringLiteral("coref_examples.json"));
  if (!QFileInfo::exists(path)) {
    const QString why =
        QStringLiteral(
            "No per-example data: %1 is missing (reports written before the probe kept examples "
            "have none); run the probe again to get it.")
            .arg(path);
    m_examples->setExamples(nullptr, why);
    emit examplesLoaded(false, why);
    return;
  }
  m_examples->setExamples(nullptr, QStringLiteral("Reading %1 ...").arg(path));
  loadReportFor<analysis::coref::ProbeExamples>(
      m_loads, request, this, path,
      [](const std::string& p) { return analysis::readCorefExamplesJson(p); },
      [this](std::shared_ptr<analysis::coref::ProbeExamples> kept, const QString& error) {
        showExamples(std::move(kept), error);
      });
}

void ProbePanel::showExamples(std::shared_ptr<const analysis::coref::ProbeExamples> kept,
                              const QString& error) {
  m_kept = kept;
  m_examples->setExamples(
      m_kept, kept ? QString() : QStringLiteral("Cannot show the examples: %1").arg(error));
  const auto fits = [&kept](QPoint head) {
    return kept && head.x() >= 0 && head.x() < kept->layers && head.y() >= 0 &&
           head.y() < kept->heads;
  };
  // The head selected before stays selected; else the drill-down opens on the best head, the
  // one a reader looks at first.
  QPoint selected = m_matrix->selectedHead();
  if (kept && !fits(selected) && m_report && m_report->result.bestLayer >= 0)
    selected = {m_report->result.bestLayer, m_report->result.bestHead};
  if (fits(selected)) {
    m_matrix->setSelectedHead(selected.x(), selected.y());
    m_examples->setHead(selected.x(), selected.y());
  }
  emit examplesLoaded(kept != nullptr, error);
}

void ProbePanel::showReport(std::shared_ptr<analysis::CorefProbeReport> report,
                            const QString& path) {
  m_report = std::move(report);
  m_reportPath = path;
  const auto& r = *m_report;
  const std::string runName =
      r.source.runName.empty() ? QFileInfo(path).dir().dirName().toStdString() : r.source.runName;
  drawMatrix(r, runName, path);
  m_summary->setText(QStringLiteral("%1, checkpoint step %2: %3 (%4 mentions; argmax over %5)")
                         .arg(QString::fromStdString(runName))
                         .arg(r.source.step)
                         .arg(QString::fromStdString(r.datasetDescription))
                         .arg(r.result.items)
                         .arg(QString::fromStdString(r.scope)));
  m_summary->setToolTip(path);
  showSkipped(r);
  fillSummaryTable(r);
  emit reportLoaded(path);
}

// The figures library's drawing, as attnlab-cli export --figure coref-heads.
void ProbePanel::drawMatrix(const analysis::CorefProbeReport& report, const std::string& runName,
                            const QString& path) {
  try {
    figures::drawCorefHeads(*m_matrix, report, runName, path.toStdString());
    m_exportButton->setEnabled(true);
  } catch (const std::exception& e) {
    m_matrix->setTitle(QString::fromStdString(e.what()));
    m_exportButton->setEnabled(false);
  }
}

void ProbePanel::showSkipped(const analysis::CorefProbeReport& report) {
  const auto& skipped = report.skipped;
  if (skipped.empty()) {
    m_skipped->setVisible(false);
    return;
  }
  // The count, and the first few messages with their file:line, as the CLI prints them.
  QStringList first;
  for (std::size_t i = 0; i < skipped.size() && i < 3; ++i)
    first << QStringLiteral("%1: %2").arg(QString::fromStdString(skipped[i].where),
                                          QString::fromStdString(skipped[i].reason));
  m_skipped->setText(
      QStringLiteral("%1 skipped (all in coref_skipped.csv)%2\n%3")
          .arg(skipped.size())
          .arg(skipped.size() > 3 ? QStringLiteral("; the first 3:") : QStringLiteral(":"))
          .arg(first.join(QLatin1Char('\n'))));
  m_skipped->setVisible(true);
}

// The best head, the mean over heads and each baseline with its accuracy.
void ProbePanel::fillSummaryTable(const analysis::CorefProbeReport& report) {
  const auto& p = report.result;
  m_table->clear();
  m_table->setColumnCount(2);
  m_table->setHorizontalHeaderLabels({QStringLiteral("predictor"), QStringLiteral("accuracy")});
  m_table->setRowCount(static_cast<int>(2 + p.baselines.size()));
  const auto row = [this](int i, const QString& name, double accuracy) {
    m_table->setItem(i, 0, new QTableWidgetItem(name));
    auto* value = new QTableWidgetItem(QString::number(accuracy, 'f', 3));
    value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_table->setItem(i, 1, value);
  };
  row(0, QStringLiteral("best head (layer %1, head %2)").arg(p.bestLayer).arg(p.bestHead),
      p.bestAccuracy);
  row(1, QStringLiteral("mean over all heads"), p.meanAccuracy);
  for (std::size_t i = 0; i < p.baselines.size(); ++i)
    row(static_cast<int>(2 + i),
        QStringLiteral("baseline: %1").arg(QString::fromStdString(p.baselines[i].name)),
        p.baselines[i].accuracy);
}

QString ProbePanel::exportFigure(const QString& path) {
  if (!m_report) return QStringLiteral("no probe report is shown");
  return exportCatalogFigure("coref-heads", m_report->source.runDir, m_report->source.step, path);
}

void ProbePanel::chooseExport() {
  askAndExportFigure(this, m_run ? m_run->directory() : QString(),
                     QStringLiteral("coref-heads.png"));
}

QString ProbePanel::exportCurrentFigure(const QString& path,
                                        const widgets::ExportOptions& options) {
  (void)options;  // the catalog figure at its own size, as attnlab-cli export writes it
  return exportFigure(path);
}

}  // namespace attnlab::app
