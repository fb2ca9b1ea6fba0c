#pragma once

// Where the Inspect tab's text comes from besides typing: a probe sentence (the first
// sentences of the synthetic reflexive data, default seed, as the coreference probe uses
// them) or one non-empty line of a text file. Picking one hands its text to the tab.

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;

namespace attnlab::app {

class InspectorSourceBar : public QWidget {
  Q_OBJECT
 public:
  /// Probe sentences offered (the first N of generateReflexives' default seed).
  static constexpr int kProbeSentences = 20;

  explicit InspectorSourceBar(QWidget* parent = nullptr);

  /// The probe sentences, in the order of the combo (without its "pick" entry).
  const QStringList& probeSentences() const { return m_probe; }
  /// Reads a text file's non-empty lines into the line picker. False (and fileFailed with
  /// a message naming the file) when it cannot be read or has no text.
  bool openTextFile(const QString& path);
  const QString& textFile() const { return m_file; }
  /// The non-empty lines of the open file, in the order of the line picker.
  const QStringList& fileLines() const { return m_lines; }
  /// The 1-based line number in the file of each entry of fileLines().
  const QList<int>& fileLineNumbers() const { return m_lineNumbers; }

 signals:
  /// A probe sentence or a file line was picked.
  void textPicked(const QString& text);
  /// A text file could not be used: what and which file.
  void fileFailed(const QString& message);

 private:
  QStringList m_probe, m_lines;
  QList<int> m_lineNumbers;
  QString m_file;
  QComboBox* m_probeCombo = nullptr;
  QPushButton* m_openButton = nullptr;
  QComboBox* m_lineCombo = nullptr;
};

}  // namespace attnlab::app
