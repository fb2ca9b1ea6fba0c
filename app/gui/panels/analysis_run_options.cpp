#include "app/gui/panels/analysis_run_options.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QWidgetAction>

namespace attnlab::app {

QString AnalysisRunOptions::problem() const {
  if (textFile.isEmpty()) return {};
  const QFileInfo info(textFile);
  if (!info.exists()) return QStringLiteral("%1: no such text file").arg(textFile);
  if (!info.isFile() || !info.isReadable())
    return QStringLiteral("%1: not a readable file").arg(textFile);
  return {};
}

QStringList AnalysisRunOptions::cliArguments() const {
  QStringList args;
  if (maxSequences > 0) args << QStringLiteral("--examples") << QString::number(maxSequences);
  if (!textFile.isEmpty()) args << QStringLiteral("--text") << textFile;
  if (pairwiseSequences != 64)
    args << QStringLiteral("--pairwise") << QString::number(pairwiseSequences);
  if (overCheckpoints) args << QStringLiteral("--over-checkpoints");
  if (heads) args << QStringLiteral("--heads");
  return args;
}

QString AnalysisRunOptions::describe() const {
  QString set = textFile.isEmpty() ? QStringLiteral("validation split")
                                   : QStringLiteral("text file %1").arg(textFile);
  set += maxSequences > 0 ? QStringLiteral(", first %1 sequences").arg(maxSequences)
                          : QStringLiteral(", all sequences");
  const QString pairs =
      pairwiseSequences > 0
          ? QStringLiteral("pairwise JSD over %1 sequences").arg(pairwiseSequences)
          : QStringLiteral("no pairwise JSD");
  return set + QStringLiteral("; ") + pairs +
         (overCheckpoints ? QStringLiteral("; every checkpoint too") : QString()) +
         (heads ? QStringLiteral("; heads: importance, ablation, pruning") : QString());
}

AnalysisRunOptionsButton::AnalysisRunOptionsButton(QWidget* parent) : QToolButton(parent) {
  setObjectName(QStringLiteral("analysisOptionsButton"));
  setText(QStringLiteral("Options..."));
  setPopupMode(QToolButton::InstantPopup);
  auto* form = new QWidget(this);
  form->setObjectName(QStringLiteral("analysisOptionsForm"));
  auto* layout = new QFormLayout(form);
  m_validation = new QRadioButton(QStringLiteral("the run's validation split"), form);
  m_validation->setChecked(true);
  m_text = new QRadioButton(QStringLiteral("a text file, one sequence a line:"), form);
  m_textFile = new QLineEdit(form);
  m_textFile->setObjectName(QStringLiteral("analysisTextFile"));
  m_textFile->setPlaceholderText(QStringLiteral("path of a UTF-8 text file"));
  auto* browse = new QPushButton(QStringLiteral("Browse..."), form);
  auto* textRow = new QHBoxLayout;
  textRow->addWidget(m_textFile, 1);
  textRow->addWidget(browse);
  m_blocks = new QSpinBox(form);
  m_blocks->setObjectName(QStringLiteral("analysisExamples"));
  m_blocks->setRange(0, 100000000);
  m_blocks->setSpecialValueText(QStringLiteral("all"));
  m_blocks->setToolTip(QStringLiteral("attnlab-cli analyze --examples N (0 = all)"));
  m_pairwise = new QSpinBox(form);
  m_pairwise->setObjectName(QStringLiteral("analysisPairwise"));
  m_pairwise->setRange(0, 100000);
  m_pairwise->setValue(64);
  m_pairwise->setSpecialValueText(QStringLiteral("off"));
  m_pairwise->setToolTip(QStringLiteral(
      "attnlab-cli analyze --pairwise N: the JSD between every two heads over the first N "
      "sequences (Head similarity view); cost grows with (layers x heads)^2"));
  layout->addRow(QStringLiteral("Evaluate on"), m_validation);
  layout->addRow(QString(), m_text);
  layout->addRow(QString(), textRow);
  layout->addRow(QStringLiteral("Sequences (blocks)"), m_blocks);
  layout->addRow(QStringLiteral("Pairwise JSD sequences"), m_pairwise);
  addChecks(layout, form);
  auto* menu = new QMenu(this);
  auto* action = new QWidgetAction(menu);
  action->setDefaultWidget(form);
  menu->addAction(action);
  setMenu(menu);

  connect(browse, &QPushButton::clicked, this, &AnalysisRunOptionsButton::chooseTextFile);
  for (QRadioButton* b : {m_validation, m_text})
    connect(b, &QRadioButton::toggled, this, &AnalysisRunOptionsButton::update);
  connect(m_textFile, &QLineEdit::textChanged, this, [this] {
    if (!m_textFile->text().isEmpty()) m_text->setChecked(true);
    update();
  });
  connect(m_blocks, &QSpinBox::valueChanged, this, &AnalysisRunOptionsButton::update);
  connect(m_pairwise, &QSpinBox::valueChanged, this, &AnalysisRunOptionsButton::update);
  connect(m_overCheckpoints, &QCheckBox::toggled, this, &AnalysisRunOptionsButton::update);
  connect(m_heads, &QCheckBox::toggled, this, &AnalysisRunOptionsButton::update);
  update();
}

void AnalysisRunOptionsButton::addChecks(QFormLayout* layout, QWidget* form) {
  m_overCheckpoints =
      new QCheckBox(QStringLiteral("also under every checkpoint (slow; Over training)"), form);
  m_overCheckpoints->setObjectName(QStringLiteral("analysisOverCheckpoints"));
  layout->addRow(QString(), m_overCheckpoints);
  m_heads = new QCheckBox(
      QStringLiteral("heads: importance, ablation, pruning curves (Heads and Pruning views)"),
      form);
  m_heads->setObjectName(QStringLiteral("analysisHeads"));
  m_heads->setToolTip(QStringLiteral(
      "attnlab-cli analyze --heads: Michel et al. 2019's gradient importance of every head, "
      "the loss with each head masked, and pruning curves (about layers x heads + 45 "
      "evaluation passes)"));
  layout->addRow(QString(), m_heads);
}

AnalysisRunOptions AnalysisRunOptionsButton::options() const {
  AnalysisRunOptions o;
  if (m_text->isChecked()) o.textFile = m_textFile->text().trimmed();
  o.maxSequences = m_blocks->value();
  o.pairwiseSequences = m_pairwise->value();
  o.overCheckpoints = m_overCheckpoints->isChecked();
  o.heads = m_heads->isChecked();
  return o;
}

void AnalysisRunOptionsButton::setOptions(const AnalysisRunOptions& o) {
  m_textFile->setText(o.textFile);
  (o.textFile.isEmpty() ? m_validation : m_text)->setChecked(true);
  m_blocks->setValue(static_cast<int>(o.maxSequences));
  m_pairwise->setValue(static_cast<int>(o.pairwiseSequences));
  m_overCheckpoints->setChecked(o.overCheckpoints);
  m_heads->setChecked(o.heads);
  update();
}

void AnalysisRunOptionsButton::chooseTextFile() {
  const QString path = QFileDialog::getOpenFileName(
      this, QStringLiteral("Evaluation text (one sequence a line)"), m_textFile->text(),
      QStringLiteral("Text files (*.txt);;All files (*)"));
  if (!path.isEmpty()) m_textFile->setText(path);
}

void AnalysisRunOptionsButton::update() {
  m_textFile->setEnabled(m_text->isChecked());
  const AnalysisRunOptions o = options();
  const QString cli = o.cliArguments().join(QLatin1Char(' '));
  setToolTip(QStringLiteral("Run analysis: %1\n(attnlab-cli analyze RUN%2)")
                 .arg(o.describe(), cli.isEmpty() ? QString() : QStringLiteral(" ") + cli));
  emit optionsChanged();
}

}  // namespace attnlab::app
