#include "app/gui/panels/lens_panel.h"
#include "app/gui/panels/lens_table_model.h"

#include <QFontMetrics>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab::app {

namespace {

const QString kCaption = QStringLiteral(
    "Logit lens: the MLM head read at each layer's output. Each cell: the top prediction and "
    "its probability (darker = more probable); bold: it is the position's own token. Click a "
    "token to mask it (again to unmask): its cells add the rank of the token that was there.");

const QString kNoHeadCaption = QStringLiteral(
    "Logit lens: none. This model has no MLM head (a BertModel or RobertaModel saved without "
    "it), so there is no head to read the layers through. Its attention, rollout and norms are "
    "the checkpoint's own.");

}  // namespace

LensPanel::LensPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  m_caption = new QLabel(kCaption, this);
  m_caption->setObjectName(QStringLiteral("inspectLensCaption"));
  m_caption->setWordWrap(true);
  m_caption->setTextFormat(Qt::PlainText);
  m_model = new LensTableModel(this);
  m_table = new QTableView(this);
  m_table->setObjectName(QStringLiteral("inspectLens"));
  m_table->setModel(m_model);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionMode(QAbstractItemView::NoSelection);
  m_table->setWordWrap(false);
  m_table->horizontalHeader()->setSectionsClickable(true);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_table->verticalHeader()->setDefaultSectionSize(2 * fontMetrics().height() + 6);
  connect(m_table->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int column) {
    // <s> and </s> (and padding) are never masked: the engine ignores them.
    const auto& frame = m_model->frame();
    if (frame && column > 0 && column < frame->realTokens - 1) emit maskToggled(column);
  });
  layout->addWidget(m_caption);
  layout->addWidget(m_table, 1);
}

void LensPanel::setTheme(const widgets::Theme& theme) {
  m_model->setTheme(theme);
}

void LensPanel::setFrame(const InspectionFrame& frame) {
  m_caption->setText(frame.hasMlmHead ? kCaption : kNoHeadCaption);
  m_model->setFrame(frame);
  fitColumns();
}

void LensPanel::fitColumns() {
  const auto& frame = m_model->frame();
  if (!frame || !frame->lens) return;
  const LensFrame& lens = *frame->lens;
  QFont bold = m_table->font();
  bold.setBold(true);
  const QFontMetrics metrics(bold);  // the widest a cell's text is drawn
  const auto widest = [&](const QString& text) {
    int w = 0;
    for (const QString& line : text.split(QLatin1Char('\n')))
      w = std::max(w, metrics.horizontalAdvance(line));
    return w;
  };
  // A cell's lines: its piece, and its probability (a masked column: with the own rank).
  const int probability = metrics.horizontalAdvance(QStringLiteral("0.00"));
  QHeaderView* header = m_table->horizontalHeader();
  for (int c = 0; c < lens.length; ++c) {
    int w = std::max(probability, widest(m_model->headerData(c, Qt::Horizontal).toString()));
    const bool masked = frame->maskedPositions.contains(c);
    for (int r = 0; r < lens.rows; ++r) {
      w = std::max(
          w, metrics.horizontalAdvance(lens.topPieces[static_cast<qsizetype>(lens.at(r, c))]));
      if (masked) w = std::max(w, widest(LensTableModel::cellText(lens, r, c, true)));
    }
    header->resizeSection(c, w + 12);
  }
}

}  // namespace attnlab::app
