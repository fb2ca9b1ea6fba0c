#include "app/gui/panels/lens_table_model.h"

#include <QColor>
#include <QFont>

#include <algorithm>

namespace attnlab::app {

namespace {

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

QFont boldFont() {
  QFont bold;
  bold.setBold(true);
  return bold;
}

}  // namespace

void LensTableModel::setFrame(const InspectionFrame& frame) {
  beginResetModel();
  m_frame = frame;
  endResetModel();
}

void LensTableModel::setTheme(const widgets::Theme& theme) {
  beginResetModel();
  m_theme = theme;
  endResetModel();
}

int LensTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_frame || !m_frame->lens ? 0 : m_frame->lens->rows;
}

int LensTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_frame || !m_frame->lens ? 0 : m_frame->lens->length;
}

bool LensTableModel::masked(int position) const {
  return m_frame && m_frame->maskedPositions.contains(position);
}

QString LensTableModel::rowName(const LensFrame& lens, int row) {
  return lens.outputRow && row == lens.rows - 1 ? QStringLiteral("output")
                                                : QStringLiteral("layer %1").arg(row);
}

QString LensTableModel::cellText(const LensFrame& lens, int row, int position, bool masked) {
  QString text = QStringLiteral("%1\n%2")
                     .arg(lens.topPieces[static_cast<qsizetype>(lens.at(row, position))])
                     .arg(lens.topProbability[lens.at(row, position)], 0, 'f', 2);
  if (masked)
    text += QStringLiteral(", own rank %1").arg(lens.targetRank[lens.cell(row, position)]);
  return text;
}

QString LensTableModel::header(int position) const {
  const QString own = m_frame->originalPieces.value(position, m_frame->pieces.value(position));
  return masked(position) ? QStringLiteral("[%1]\nmasked").arg(own) : own;
}

QString LensTableModel::tooltip(int row, int position) const {
  const LensFrame& lens = *m_frame->lens;
  const QString own = m_frame->originalPieces.value(position);
  QString tip =
      QStringLiteral("%1, position %2 (%3):").arg(rowName(lens, row)).arg(position).arg(own);
  for (int k = 0; k < lens.top; ++k)
    tip += QStringLiteral("\n%1. %2  %3")
               .arg(k + 1)
               .arg(lens.topPieces[static_cast<qsizetype>(lens.at(row, position, k))])
               .arg(lens.topProbability[lens.at(row, position, k)], 0, 'f', 4);
  tip += QStringLiteral("\nown token %1: rank %2 (0 = top), probability %3")
             .arg(own)
             .arg(lens.targetRank[lens.cell(row, position)])
             .arg(lens.targetProbability[lens.cell(row, position)], 0, 'g', 3);
  return tip;
}

QVariant LensTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !m_frame || !m_frame->lens) return {};
  const LensFrame& lens = *m_frame->lens;
  const int row = index.row(), position = index.column();
  const double p = lens.topProbability[lens.at(row, position)];
  switch (role) {
    case Qt::DisplayRole:
      return cellText(lens, row, position, masked(position));
    case Qt::UserRole:
      return lens.topPieces[static_cast<qsizetype>(lens.at(row, position))];
    case Qt::ToolTipRole:
      return tooltip(row, position);
    case Qt::BackgroundRole:
      return blend(m_theme.background, kProbable, 0.9 * p);
    case Qt::ForegroundRole:
      return p > 0.55 ? QColor(Qt::white) : m_theme.foreground;
    case Qt::FontRole:
      return lens.targetRank[lens.cell(row, position)] == 0 ? QVariant(boldFont()) : QVariant();
    default:
      return {};
  }
}

QVariant LensTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (!m_frame || !m_frame->lens) return {};
  if (orientation == Qt::Vertical)
    return role == Qt::DisplayRole ? QVariant(rowName(*m_frame->lens, section)) : QVariant();
  if (role == Qt::DisplayRole) return header(section);
  if (role == Qt::FontRole && masked(section)) return boldFont();
  if (role == Qt::ToolTipRole)
    return masked(section) ? QStringLiteral("Click to unmask this token")
                           : QStringLiteral("Click to mask this token and inspect again");
  return {};
}

}  // namespace attnlab::app
