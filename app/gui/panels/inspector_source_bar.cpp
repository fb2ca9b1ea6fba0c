#include "app/gui/panels/inspector_source_bar.h"

#include "app/gui/panels/probe_sentences.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTextStream>

namespace attnlab::app {

namespace {

// Combo entries are one line each; a long file line is shown shortened.
QString shortened(const QString& line) {
  return line.size() > 90 ? line.left(87) + QStringLiteral("...") : line;
}

}  // namespace

InspectorSourceBar::InspectorSourceBar(QWidget* parent) : QWidget(parent) {
  auto* bar = new QHBoxLayout(this);
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(new QLabel(QStringLiteral("Probe sentence"), this));
  m_probeCombo = new QComboBox(this);
  m_probeCombo->setObjectName(QStringLiteral("inspectProbeSentence"));
  m_probeCombo->setToolTip(
      QStringLiteral(
          "The first %1 sentences of the synthetic reflexive data (default seed), as the "
          "coreference probe uses them")
          .arg(kProbeSentences));
  m_probe = firstProbeSentences(kProbeSentences);
  m_probeCombo->addItem(QStringLiteral("(pick one)"));
  for (int i = 0; i < m_probe.size(); ++i)
    m_probeCombo->addItem(QStringLiteral("%1: %2").arg(i).arg(m_probe[i]));
  bar->addWidget(m_probeCombo, 1);
  bar->addSpacing(12);
  m_openButton = new QPushButton(QStringLiteral("Open text file..."), this);
  m_openButton->setObjectName(QStringLiteral("inspectOpenTextFile"));
  bar->addWidget(m_openButton);
  m_lineCombo = new QComboBox(this);
  m_lineCombo->setObjectName(QStringLiteral("inspectFileLine"));
  m_lineCombo->setToolTip(QStringLiteral("A non-empty line of the open text file"));
  m_lineCombo->setEnabled(false);
  m_lineCombo->addItem(QStringLiteral("(no file)"));
  bar->addWidget(m_lineCombo, 1);

  connect(m_probeCombo, qOverload<int>(&QComboBox::activated), this, [this](int index) {
    if (index >= 1 && index - 1 < m_probe.size()) emit textPicked(m_probe[index - 1]);
  });
  connect(m_lineCombo, qOverload<int>(&QComboBox::activated), this, [this](int index) {
    if (index >= 0 && index < m_lines.size()) emit textPicked(m_lines[index]);
  });
  connect(m_openButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, QStringLiteral("Open a text file to inspect"), QFileInfo(m_file).path(),
        QStringLiteral("Text files (*.txt *.text *.tsv);;All files (*)"));
    if (!path.isEmpty()) openTextFile(path);
  });
}

bool InspectorSourceBar::openTextFile(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
    emit fileFailed(
        QStringLiteral("Cannot read the text file %1: %2").arg(path, file.errorString()));
    return false;
  }
  QStringList lines;
  QList<int> numbers;
  QTextStream in(&file);
  for (int number = 1; !in.atEnd(); ++number) {
    const QString line = in.readLine().trimmed();
    if (line.isEmpty()) continue;
    lines << line;
    numbers << number;
  }
  if (in.status() != QTextStream::Ok) {
    emit fileFailed(QStringLiteral("Cannot read the text file %1: read error").arg(path));
    return false;
  }
  if (lines.isEmpty()) {
    emit fileFailed(QStringLiteral("The text file %1 has no non-empty line").arg(path));
    return false;
  }
  m_file = path;
  m_lines = lines;
  m_lineNumbers = numbers;
  QSignalBlocker block(m_lineCombo);
  m_lineCombo->clear();
  for (int i = 0; i < m_lines.size(); ++i)
    m_lineCombo->addItem(
        QStringLiteral("line %1: %2").arg(m_lineNumbers[i]).arg(shortened(m_lines[i])));
  m_lineCombo->setEnabled(true);
  m_lineCombo->setToolTip(QStringLiteral("%1: %2 non-empty lines").arg(path).arg(m_lines.size()));
  return true;
}

}  // namespace attnlab::app
