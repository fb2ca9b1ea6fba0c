#pragma once

// The Probe tab's drill-down: for the head clicked in the accuracy matrix, the kept examples
// (coref_examples.json beside coref.json) that head gets right and wrong, and for the
// selected one that head's word-level attention row over the sentence, the antecedent words
// and the picked word marked.

#include <QString>
#include <QVector>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QTableWidget;

namespace attnlab::analysis::coref {
struct ProbeExamples;
}
namespace attnlab::widgets {
class WordAttentionBars;
struct Theme;
}  // namespace attnlab::widgets

namespace attnlab::app {

class ProbeExamplesView : public QWidget {
  Q_OBJECT
 public:
  enum class Filter { All, Right, Wrong };
  /// One table row: item `item` of kept example `example`, and whether the head got it right.
  struct Entry {
    int example = 0;
    int item = 0;
    bool right = false;
  };

  explicit ProbeExamplesView(QWidget* parent = nullptr);
  ~ProbeExamplesView() override;

  /// The kept examples of the report shown; null with `note` saying why there are none (a
  /// report written before the probe kept examples). Clears the head.
  void setExamples(std::shared_ptr<const analysis::coref::ProbeExamples> examples,
                   const QString& note = {});
  /// Lists the items (layer, head) gets right and wrong and shows the first one.
  void setHead(int layer, int head);
  void setFilter(Filter filter);
  void setTheme(const widgets::Theme& theme);

  int layer() const { return m_layer; }
  int head() const { return m_head; }
  /// The table's rows, in table order.
  const QVector<Entry>& entries() const { return m_entries; }
  /// The entry whose row is shown in the bars; null when none.
  const Entry* shownEntry() const;
  QTableWidget* table() const { return m_table; }
  widgets::WordAttentionBars* bars() const { return m_bars; }

 signals:
  /// The bars now show item `item` of example `example` for the current head.
  void entryShown(int example, int item);

 private:
  void fill();
  void showRow(int row);

  std::shared_ptr<const analysis::coref::ProbeExamples> m_examples;
  QString m_note;
  int m_layer = -1;
  int m_head = -1;
  Filter m_filter = Filter::All;
  QVector<Entry> m_entries;
  int m_shown = -1;

  QLabel* m_header = nullptr;
  QComboBox* m_filterBox = nullptr;
  QTableWidget* m_table = nullptr;
  widgets::WordAttentionBars* m_bars = nullptr;
};

}  // namespace attnlab::app
