#include "app/gui/panels/probe_examples_view.h"

#include "analysis/coref/probe_examples.h"
#include "widgets/plots/theme.h"
#include "widgets/plots/word_attention_bars.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab::app {

namespace {

QString sentence(const analysis::coref::KeptExample& e, int query) {
  QStringList words;
  // <s> and </s> are the layout's, not the sentence's; the query word is bracketed.
  for (int w = 1; w + 1 < static_cast<int>(e.words.size()); ++w) {
    const QString word = QString::fromStdString(e.words[static_cast<std::size_t>(w)]);
    words << (w == query ? QStringLiteral("[%1]").arg(word) : word);
  }
  return words.join(QLatin1Char(' '));
}

}  // namespace

ProbeExamplesView::ProbeExamplesView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QHBoxLayout;
  m_header = new QLabel(this);
  m_header->setObjectName(QStringLiteral("probeExamplesHeader"));
  m_header->setTextFormat(Qt::PlainText);
  m_header->setWordWrap(true);
  bar->addWidget(m_header, 1);
  m_filterBox = new QComboBox(this);
  m_filterBox->setObjectName(QStringLiteral("probeExamplesFilter"));
  m_filterBox->addItems({QStringLiteral("right and wrong"), QStringLiteral("right only"),
                         QStringLiteral("wrong only")});
  bar->addWidget(m_filterBox);
  layout->addLayout(bar);

  auto* split = new QSplitter(Qt::Horizontal, this);
  m_table = new QTableWidget(split);
  m_table->setObjectName(QStringLiteral("probeExamplesTable"));
  m_table->setColumnCount(4);
  m_table->setHorizontalHeaderLabels({QStringLiteral("result"), QStringLiteral("picked"),
                                      QStringLiteral("example"),
                                      QStringLiteral("sentence ([query])")});
  m_table->verticalHeader()->setVisible(false);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setWordWrap(false);
  m_bars = new widgets::WordAttentionBars(split);
  m_bars->setObjectName(QStringLiteral("probeExampleBars"));
  m_bars->setMinimumWidth(300);
  split->addWidget(m_table);
  split->addWidget(m_bars);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setSizes({560, 840});  // the sentences need the room as much as the bars
  layout->addWidget(split, 1);

  connect(m_filterBox, &QComboBox::currentIndexChanged, this,
          [this](int i) { setFilter(static_cast<Filter>(i)); });
  connect(m_table, &QTableWidget::currentCellChanged, this,
          [this](int row, int, int, int) { showRow(row); });
  setExamples(nullptr);
}

ProbeExamplesView::~ProbeExamplesView() = default;

void ProbeExamplesView::setExamples(std::shared_ptr<const analysis::coref::ProbeExamples> examples,
                                    const QString& note) {
  m_examples = std::move(examples);
  m_note = note;
  m_layer = m_head = -1;
  fill();
}

void ProbeExamplesView::setHead(int layer, int head) {
  m_layer = layer;
  m_head = head;
  fill();
}

void ProbeExamplesView::setFilter(Filter filter) {
  if (m_filterBox->currentIndex() != static_cast<int>(filter)) {
    m_filterBox->setCurrentIndex(static_cast<int>(filter));  // comes back here through the box
    return;
  }
  m_filter = filter;
  fill();
}

void ProbeExamplesView::setTheme(const widgets::Theme& theme) {
  m_bars->setTheme(theme);
}

const ProbeExamplesView::Entry* ProbeExamplesView::shownEntry() const {
  return m_shown >= 0 && m_shown < m_entries.size() ? &m_entries[m_shown] : nullptr;
}

void ProbeExamplesView::fill() {
  m_entries.clear();
  m_shown = -1;
  m_table->setRowCount(0);
  m_bars->setWords({});
  m_bars->setTitle({});
  const auto* k = m_examples.get();
  const bool valid = k && m_layer >= 0 && m_layer < k->layers && m_head >= 0 && m_head < k->heads;
  if (!valid) {
    m_header->setText(!k ? (m_note.isEmpty() ? QStringLiteral("No per-example data.") : m_note)
                         : QStringLiteral("Click a head in the matrix to list the examples it "
                                          "gets right and wrong (%1 examples kept of %2 probed).")
                               .arg(k->examples.size())
                               .arg(k->probed));
    return;
  }
  const int h = m_layer * k->heads + m_head;
  int right = 0, wrong = 0;
  QVector<Entry> all;
  for (int e = 0; e < static_cast<int>(k->examples.size()); ++e) {
    const auto& example = k->examples[static_cast<std::size_t>(e)];
    for (int i = 0; i < static_cast<int>(example.items.size()); ++i) {
      const bool ok = example.items[static_cast<std::size_t>(i)].right(h);
      (ok ? right : wrong) += 1;
      if (m_filter == Filter::All || (m_filter == Filter::Right) == ok) all.push_back({e, i, ok});
    }
  }
  m_entries = all;
  m_header->setText(
      QStringLiteral("Layer %1, head %2: right on %3, wrong on %4 of the %5 items in the first %6 "
                     "examples%7.")
          .arg(m_layer)
          .arg(m_head)
          .arg(right)
          .arg(wrong)
          .arg(right + wrong)
          .arg(k->examples.size())
          .arg(k->complete() ? QStringLiteral(" (all that were probed)")
                             : QStringLiteral(" kept of %1 probed").arg(k->probed)));
  m_table->setRowCount(static_cast<int>(m_entries.size()));
  for (int row = 0; row < m_entries.size(); ++row) {
    const Entry& entry = m_entries[row];
    const auto& example = k->examples[static_cast<std::size_t>(entry.example)];
    const auto& item = example.items[static_cast<std::size_t>(entry.item)];
    const int picked = item.picked[static_cast<std::size_t>(h)];
    auto* result =
        new QTableWidgetItem(entry.right ? QStringLiteral("right") : QStringLiteral("wrong"));
    result->setForeground(entry.right ? QColor(0x1b, 0x7f, 0x3b) : QColor(0xb0, 0x20, 0x20));
    m_table->setItem(row, 0, result);
    m_table->setItem(row, 2, new QTableWidgetItem(QString::fromStdString(example.source)));
    m_table->setItem(row, 3, new QTableWidgetItem(sentence(example, item.queryWord)));
    m_table->setItem(
        row, 1,
        new QTableWidgetItem(
            picked >= 0 ? QString::fromStdString(example.words[static_cast<std::size_t>(picked)])
                        : QStringLiteral("(none)")));
  }
  if (!m_entries.isEmpty()) m_table->setCurrentCell(0, 0);
}

void ProbeExamplesView::showRow(int row) {
  const auto* k = m_examples.get();
  if (!k || row < 0 || row >= m_entries.size() || m_layer < 0) return;
  m_shown = row;
  const Entry& entry = m_entries[row];
  const auto& example = k->examples[static_cast<std::size_t>(entry.example)];
  const auto& item = example.items[static_cast<std::size_t>(entry.item)];
  const int h = m_layer * k->heads + m_head;
  const int W = static_cast<int>(example.words.size());
  const float* values = item.row(h, W);
  QVector<widgets::WordBar> bars;
  for (int w = 0; w < W; ++w) {
    widgets::WordBar b;
    b.word = QString::fromStdString(example.words[static_cast<std::size_t>(w)]);
    b.value = values[w];
    b.correct =
        std::find(item.correctWords.begin(), item.correctWords.end(), w) != item.correctWords.end();
    b.picked = item.picked[static_cast<std::size_t>(h)] == w;
    b.query = item.queryWord == w;
    bars.push_back(b);
  }
  m_bars->setTitle(
      QStringLiteral("Layer %1, head %2 on %3 (%4): attention of \"%5\"")
          .arg(m_layer)
          .arg(m_head)
          .arg(QString::fromStdString(example.source))
          .arg(entry.right ? QStringLiteral("right") : QStringLiteral("wrong"))
          .arg(QString::fromStdString(example.words[static_cast<std::size_t>(item.queryWord)])));
  m_bars->setWords(bars);
  emit entryShown(entry.example, entry.item);
}

}  // namespace attnlab::app
