#include "app/gui/panels/lens_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab::app {

namespace {

const QString kCaption = QStringLiteral(
    "Logit lens: the MLM head read at each layer's output. Each cell: the top prediction and "
    "its probability (darker = more probable); bold: it is the position's own token. Click a "
    "token to mask it (again to unmask): its cells add the rank of the token that was there.");

// The colour of a certain prediction (a sequential blue: readable on both themes, and not the
// accent, which marks selections).
const QColor kProbable(33, 102, 172);

// `p` of the way from `from` to `to`.
QColor blend(const QColor& from, const QColor& to, double p) {
  const double q = std::clamp(p, 0.0, 1.0);
  return QColor::fromRgbF(static_cast<float>(from.redF() + (to.redF() - from.redF()) * q),
                          static_cast<float>(from.greenF() + (to.greenF() - from.greenF()) * q),
                          static_cast<float>(from.blueF() + (to.blueF() - from.blueF()) * q));
}

}  // namespace

LensPanel::LensPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  m_caption = new QLabel(kCaption, this);
  m_caption->setObjectName(QStringLiteral("inspectLensCaption"));
  m_caption->setWordWrap(true);
  m_caption->setTextFormat(Qt::PlainText);
  m_table = new QTableWidget(this);
  m_table->setObjectName(QStringLiteral("inspectLens"));
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionMode(QAbstractItemView::NoSelection);
  m_table->setWordWrap(false);
  m_table->horizontalHeader()->setSectionsClickable(true);
  m_table->horizontalHeader()->setToolTip(QStringLiteral("Click a token to mask it"));
  m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_table->verticalHeader()->setDefaultSectionSize(2 * fontMetrics().height() + 6);
  connect(m_table->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int column) {
    // <s> and </s> (and padding) are never masked: the engine ignores them.
    if (m_frame && column > 0 && column < m_frame->realTokens - 1) emit maskToggled(column);
  });
  layout->addWidget(m_caption);
  layout->addWidget(m_table, 1);
}

void LensPanel::setTheme(const widgets::Theme& theme) {
  m_theme = theme;
  fill();
}

void LensPanel::setFrame(const InspectionFrame& frame) {
  m_frame = frame;
  fill();
}

QString LensPanel::rowName(const LensFrame& lens, int row) {
  return lens.outputRow && row == lens.rows - 1 ? QStringLiteral("output")
                                                : QStringLiteral("layer %1").arg(row);
}

QString LensPanel::cellText(const LensFrame& lens, int row, int position, bool masked) {
  QString text = QStringLiteral("%1\n%2")
                     .arg(lens.topPieces[static_cast<qsizetype>(lens.at(row, position))])
                     .arg(lens.topProbability[lens.at(row, position)], 0, 'f', 2);
  if (masked)
    text += QStringLiteral(", own rank %1").arg(lens.targetRank[lens.cell(row, position)]);
  return text;
}

QString LensPanel::header(int position) const {
  const QString own = m_frame->originalPieces.value(position, m_frame->pieces.value(position));
  return m_frame->maskedPositions.contains(position) ? QStringLiteral("[%1]\nmasked").arg(own)
                                                     : own;
}

QString LensPanel::tooltip(int row, int position) const {
  const LensFrame& lens = *m_frame->lens;
  QString tip = QStringLiteral("%1, position %2 (%3):")
                    .arg(rowName(lens, row))
                    .arg(position)
                    .arg(m_frame->originalPieces.value(position));
  for (int k = 0; k < lens.top; ++k)
    tip += QStringLiteral("\n%1. %2  %3")
               .arg(k + 1)
               .arg(lens.topPieces[static_cast<qsizetype>(lens.at(row, position, k))])
               .arg(lens.topProbability[lens.at(row, position, k)], 0, 'f', 4);
  tip += QStringLiteral("\nown token %1: rank %2 (0 = top), probability %3")
             .arg(m_frame->originalPieces.value(position))
             .arg(lens.targetRank[lens.cell(row, position)])
             .arg(lens.targetProbability[lens.cell(row, position)], 0, 'g', 3);
  return tip;
}

QTableWidgetItem* LensPanel::newCell(int row, int position, bool masked) const {
  const LensFrame& lens = *m_frame->lens;
  const double p = lens.topProbability[lens.at(row, position)];
  auto* item = new QTableWidgetItem(cellText(lens, row, position, masked));
  item->setData(Qt::UserRole, lens.topPieces[static_cast<qsizetype>(lens.at(row, position))]);
  item->setBackground(blend(m_theme.background, kProbable, 0.9 * p));
  item->setForeground(p > 0.55 ? QColor(Qt::white) : m_theme.foreground);
  if (lens.targetRank[lens.cell(row, position)] == 0) {
    QFont bold = item->font();
    bold.setBold(true);
    item->setFont(bold);
  }
  item->setToolTip(tooltip(row, position));
  return item;
}

void LensPanel::fill() {
  m_table->clear();
  if (!m_frame || !m_frame->lens) {
    m_table->setRowCount(0);
    m_table->setColumnCount(0);
    return;
  }
  const LensFrame& lens = *m_frame->lens;
  m_table->setUpdatesEnabled(false);
  m_table->setRowCount(lens.rows);
  m_table->setColumnCount(lens.length);
  QStringList rows, columns;
  for (int r = 0; r < lens.rows; ++r) rows << rowName(lens, r);
  for (int t = 0; t < lens.length; ++t) columns << header(t);
  m_table->setVerticalHeaderLabels(rows);
  m_table->setHorizontalHeaderLabels(columns);
  for (int t = 0; t < lens.length; ++t) {
    const bool masked = m_frame->maskedPositions.contains(t);
    if (masked) {
      QFont bold = m_table->horizontalHeaderItem(t)->font();
      bold.setBold(true);
      m_table->horizontalHeaderItem(t)->setFont(bold);
    }
    for (int r = 0; r < lens.rows; ++r) m_table->setItem(r, t, newCell(r, t, masked));
  }
  m_table->resizeColumnsToContents();
  m_table->setUpdatesEnabled(true);
}

}  // namespace attnlab::app
