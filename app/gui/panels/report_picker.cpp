#include "app/gui/panels/report_picker.h"

#include "app/gui/panels/run_reports.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace attnlab::app {
namespace {

// What the picker says for each kind of report.
struct PickerTexts {
  QString boxTip;
  QString openTip;
  QString dialogTitle;
  QString fileFilter;
};

PickerTexts textsFor(analysis::ReportKind kind) {
  switch (kind) {
    case analysis::ReportKind::Attention:
      return {QStringLiteral("The analyses of this run (attnlab-cli analyze writes "
                             "them under <run>/analysis/step-S/)"),
              QStringLiteral("Open any analysis.json"), QStringLiteral("Open analysis report"),
              QStringLiteral("Analysis reports (analysis.json);;JSON files (*.json)")};
    case analysis::ReportKind::Coref:
      return {QStringLiteral("The coreference probes of this run (attnlab-cli probe coref "
                             "writes them under <run>/analysis/coref-step-S/)"),
              QStringLiteral("Open any coref.json"),
              QStringLiteral("Open coreference probe report"),
              QStringLiteral("Probe reports (coref.json);;JSON files (*.json)")};
    case analysis::ReportKind::Health:
      return {QStringLiteral("The attention-health reports of this run (attnlab-cli health "
                             "writes them under <run>/analysis/health-step-S/)"),
              QStringLiteral("Open any health.json"), QStringLiteral("Open health report"),
              QStringLiteral("Health reports (health.json);;JSON files (*.json)")};
  }
  return {};
}

}  // namespace

ReportPicker::ReportPicker(analysis::ReportKind kind, const QString& boxName,
                           const QString& openName, QWidget* parent)
    : QWidget(parent), m_kind(kind) {
  const PickerTexts texts = textsFor(kind);
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(new QLabel(QStringLiteral("Report"), this));
  m_box = new QComboBox(this);
  m_box->setObjectName(boxName);
  m_box->setMinimumContentsLength(24);
  m_box->setToolTip(texts.boxTip);
  m_box->setEnabled(false);
  row->addWidget(m_box);
  m_open = new QPushButton(QStringLiteral("Open report..."), this);
  m_open->setObjectName(openName);
  m_open->setToolTip(texts.openTip);
  row->addWidget(m_open);

  connect(m_box, &QComboBox::activated, this, [this](int index) {
    if (index >= 0 && index < m_files.size()) emit picked(m_files[index]);
  });
  connect(m_open, &QPushButton::clicked, this, &ReportPicker::chooseFile);
}

void ReportPicker::setRunDirectory(const QString& runDirectory) {
  m_runDirectory = runDirectory;
}

void ReportPicker::rescan() {
  m_files = m_runDirectory.isEmpty() ? QStringList() : runReports(m_runDirectory, m_kind);
  m_box->clear();
  // The entry is the report's folder: step-S or coref-step-S says the checkpoint.
  for (const QString& f : m_files) m_box->addItem(QFileInfo(f).dir().dirName(), f);
  m_box->setEnabled(!m_files.isEmpty());
  if (!m_files.isEmpty()) m_box->setCurrentIndex(static_cast<int>(m_files.size() - 1));
}

bool ReportPicker::select(const QString& path) {
  const qsizetype index = path.isEmpty() ? -1 : m_files.indexOf(path);
  if (index < 0) return false;
  m_box->setCurrentIndex(static_cast<int>(index));
  return true;
}

void ReportPicker::chooseFile() {
  const PickerTexts texts = textsFor(m_kind);
  const QString start =
      m_runDirectory.isEmpty()
          ? QDir::homePath()
          : QString::fromStdString(analysis::reportsFolder(m_runDirectory.toStdString()).string());
  const QString path =
      QFileDialog::getOpenFileName(this, texts.dialogTitle, start, texts.fileFilter);
  if (!path.isEmpty()) emit picked(path);
}

}  // namespace attnlab::app
