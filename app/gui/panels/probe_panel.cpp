#include "app/gui/panels/probe_panel.h"

#include "analysis/report/report_readers.h"
#include "analysis/runs/coref_probe_report.h"
#include "app/gui/panels/figure_files.h"
#include "app/gui/panels/job_bar.h"
#include "app/gui/panels/run_reports.h"
#include "figures/analysis_figures.h"
#include "widgets/plots/probe_matrix_plot.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <exception>

namespace attnlab::app {

ProbePanel::ProbePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Report"), this));
  m_reportBox = new QComboBox(this);
  m_reportBox->setObjectName(QStringLiteral("probeReportBox"));
  m_reportBox->setMinimumContentsLength(24);
  bar->addWidget(m_reportBox);
  m_openButton = new QPushButton(QStringLiteral("Open report..."), this);
  m_openButton->setObjectName(QStringLiteral("openProbeButton"));
  bar->addWidget(m_openButton);
  m_exportButton = new QPushButton(QStringLiteral("Export figure..."), this);
  m_exportButton->setObjectName(QStringLiteral("exportProbeFigureButton"));
  m_exportButton->setEnabled(false);
  bar->addWidget(m_exportButton);
  bar->addSpacing(16);
  bar->addWidget(new QLabel(QStringLiteral("Dataset"), this));
  m_dataset = new QLineEdit(QStringLiteral("synthetic"), this);
  m_dataset->setObjectName(QStringLiteral("probeDataset"));
  m_dataset->setToolTip(QStringLiteral(
      "synthetic (reflexives, Lin et al.'s grammar), conll:PATH (CoNLL-2012) or lin:PATH "
      "(Lin et al.'s released refl.N files), as attnlab-cli probe coref --dataset"));
  m_dataset->setMinimumWidth(160);
  bar->addWidget(m_dataset);
  m_jobBar = new JobBar(QStringLiteral("Run probe"), QStringLiteral("probe"), this);
  bar->addWidget(m_jobBar);
  bar->addStretch(1);
  layout->addLayout(bar);
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("probeSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::PlainText);  // "<s> and </s>" would read as strikethrough
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);
  auto* split = new QSplitter(Qt::Vertical, this);
  m_matrix = new widgets::ProbeMatrixPlot(split);
  m_matrix->setObjectName(QStringLiteral("probeMatrix"));
  m_matrix->setMinimumHeight(240);
  m_table = new QTableWidget(split);
  m_table->setObjectName(QStringLiteral("probeSummaryTable"));
  m_table->verticalHeader()->setVisible(false);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  split->addWidget(m_matrix);
  split->addWidget(m_table);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);

  connect(m_reportBox, &QComboBox::activated, this, [this](int i) {
    if (i >= 0 && i < m_files.size()) openReport(m_files[i]);
  });
  connect(m_openButton, &QPushButton::clicked, this, &ProbePanel::chooseFile);
  connect(m_exportButton, &QPushButton::clicked, this, &ProbePanel::chooseExport);
  connect(m_jobBar, &JobBar::runClicked, this, [this] {
    if (!m_run) return;
    emit probeRequested(m_run, dataset());
    m_jobBar->markStarted();
  });
  connect(m_jobBar, &JobBar::jobFinished, this,
          [this](bool ok, bool cancelled, const QString& message, const QString& report) {
            if (ok) {
              rescan();
              openReport(report);
            } else {
              m_summary->setText(cancelled ? QStringLiteral("Probe cancelled; nothing was written.")
                                           : QStringLiteral("The probe failed: %1").arg(message));
            }
          });
  rescan();
}

ProbePanel::~ProbePanel() = default;

void ProbePanel::setRuns(const QList<RunSession*>& runs) {
  RunSession* run = runs.isEmpty() ? nullptr : runs.first();
  if (run == m_run && run != nullptr) return;
  m_run = run;
  m_jobBar->setRunnable(m_run != nullptr);
  rescan();
}

void ProbePanel::setAnalysisController(AnalysisController* controller) {
  m_jobBar->setController(controller);
}

QString ProbePanel::dataset() const {
  return m_dataset->text().trimmed();
}

void ProbePanel::setTheme(const widgets::Theme& theme) {
  m_matrix->setTheme(theme);
}

void ProbePanel::rescan() {
  m_files = m_run ? runReports(m_run->directory(), QStringLiteral("coref-step-"),
                               QStringLiteral("coref.json"))
                  : QStringList();
  m_reportBox->clear();
  for (const QString& f : m_files) m_reportBox->addItem(QFileInfo(f).dir().dirName(), f);
  m_reportBox->setEnabled(!m_files.isEmpty());
  if (!m_files.isEmpty()) {
    m_reportBox->setCurrentIndex(static_cast<int>(m_files.size() - 1));
    openReport(m_files.last());
  } else if (m_run) {
    m_summary->setText(QStringLiteral("%1 has no coreference probe yet. Run `attnlab-cli probe "
                                      "coref %2` (synthetic reflexives, conll:PATH or lin:PATH), "
                                      "or open a coref.json.")
                           .arg(m_run->name(), m_run->directory()));
  }
}

void ProbePanel::openReport(const QString& path) {
  const int request = ++m_loads;
  m_summary->setText(QStringLiteral("Reading %1 ...").arg(path));
  readReportOffThread<analysis::CorefProbeReport>(
      this, path, [](const std::string& p) { return analysis::readCorefJson(p); },
      [this, path, request](std::shared_ptr<analysis::CorefProbeReport> report,
                            const QString& error) {
        if (request != m_loads) return;  // a newer request
        if (report) {
          showReport(std::move(report), path);
        } else {
          m_summary->setText(QStringLiteral("Cannot show the probe: %1").arg(error));
          emit loadFailed(error);
        }
      });
}

void ProbePanel::showReport(std::shared_ptr<analysis::CorefProbeReport> report,
                            const QString& path) {
  m_report = std::move(report);
  m_reportPath = path;
  const auto& r = *m_report;
  const auto& p = r.result;
  const std::string runName =
      r.source.runName.empty() ? QFileInfo(path).dir().dirName().toStdString() : r.source.runName;
  try {
    figures::drawCorefHeads(*m_matrix, r, runName, path.toStdString());
    m_exportButton->setEnabled(true);
  } catch (const std::exception& e) {
    m_matrix->setTitle(QString::fromStdString(e.what()));
    m_exportButton->setEnabled(false);
  }
  m_summary->setText(QStringLiteral("%1, checkpoint step %2: %3 (%4 mentions; argmax over %5)")
                         .arg(QString::fromStdString(runName))
                         .arg(r.source.step)
                         .arg(QString::fromStdString(r.datasetDescription))
                         .arg(p.items)
                         .arg(QString::fromStdString(r.scope)));
  m_summary->setToolTip(path);
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
  emit reportLoaded(path);
}

QString ProbePanel::exportFigure(const QString& path) {
  if (!m_report) return QStringLiteral("no probe report is shown");
  return exportCatalogFigure("coref-heads", m_report->source.runDir, m_report->source.step, path);
}

void ProbePanel::chooseFile() {
  const QString start =
      m_run ? QDir(m_run->directory()).filePath(QStringLiteral("analysis")) : QDir::homePath();
  const QString path = QFileDialog::getOpenFileName(
      this, QStringLiteral("Open coreference probe report"), start,
      QStringLiteral("Probe reports (coref.json);;JSON files (*.json)"));
  if (!path.isEmpty()) openReport(path);
}

void ProbePanel::chooseExport() {
  const QString name = QStringLiteral("coref-heads.png");
  const QString path = askFigurePath(this, m_run ? QDir(m_run->directory()).filePath(name) : name);
  if (path.isEmpty()) return;
  const QString error = exportFigure(path);
  m_summary->setText(error.isEmpty() ? QStringLiteral("Exported %1").arg(path)
                                     : QStringLiteral("Export failed: %1").arg(error));
}

}  // namespace attnlab::app
