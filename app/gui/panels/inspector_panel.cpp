#include "app/gui/panels/inspector_panel.h"

#include "widgets/plots/attention_heatmap.h"
#include "widgets/plots/head_grid.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab::app {

namespace {
const QString kDefaultText = QStringLiteral("the cat that the dog chased ran up the tree .");
}

InspectorPanel::InspectorPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);

  auto* textBar = new QHBoxLayout;
  textBar->addWidget(new QLabel(QStringLiteral("Text"), this));
  m_text = new QLineEdit(kDefaultText, this);
  m_text->setObjectName(QStringLiteral("inspectText"));
  m_text->setToolTip(QStringLiteral("Any text: Enter runs it through the checkpoint"));
  textBar->addWidget(m_text, 1);
  m_inspectButton = new QPushButton(QStringLiteral("Inspect"), this);
  m_inspectButton->setObjectName(QStringLiteral("inspectButton"));
  textBar->addWidget(m_inspectButton);
  layout->addLayout(textBar);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Checkpoint"), this));
  m_checkpointSlider = new QSlider(Qt::Horizontal, this);
  m_checkpointSlider->setObjectName(QStringLiteral("inspectCheckpointSlider"));
  m_checkpointSlider->setMinimumWidth(200);
  m_checkpointSlider->setPageStep(1);
  bar->addWidget(m_checkpointSlider, 1);
  m_checkpointLabel = new QLabel(this);
  m_checkpointLabel->setObjectName(QStringLiteral("inspectCheckpointLabel"));
  m_checkpointLabel->setMinimumWidth(90);
  bar->addWidget(m_checkpointLabel);
  bar->addSpacing(12);
  m_logScale = new QCheckBox(QStringLiteral("Log colour scale"), this);
  m_logScale->setObjectName(QStringLiteral("inspectLogScale"));
  bar->addWidget(m_logScale);
  m_scoresBox = new QCheckBox(QStringLiteral("Pre-softmax scores"), this);
  m_scoresBox->setObjectName(QStringLiteral("inspectScores"));
  m_scoresBox->setToolTip(QStringLiteral(
      "The logits before the softmax (RealFormer's running residual scores where the run "
      "uses residual attention)"));
  bar->addWidget(m_scoresBox);
  layout->addLayout(bar);

  m_status = new QLabel(QStringLiteral("Select a run with a checkpoint, type a text, press "
                                       "Enter."),
                        this);
  m_status->setObjectName(QStringLiteral("inspectStatus"));
  m_status->setWordWrap(true);
  m_status->setTextFormat(Qt::PlainText);  // texts and messages may hold "<s>"
  layout->addWidget(m_status);

  auto* split = new QSplitter(Qt::Horizontal, this);
  m_grid = new widgets::HeadGrid(split);
  m_grid->setObjectName(QStringLiteral("inspectHeadGrid"));
  m_grid->setMinimumWidth(260);
  auto* right = new QWidget(split);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  m_heatmap = new widgets::AttentionHeatmap(right);
  m_heatmap->setObjectName(QStringLiteral("inspectHeatmap"));
  m_hover = new QLabel(QStringLiteral("Hover a cell: from-token, to-token, weight"), right);
  m_hover->setObjectName(QStringLiteral("inspectHover"));
  m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
  rightLayout->addWidget(m_heatmap, 1);
  rightLayout->addWidget(m_hover);
  split->addWidget(m_grid);
  split->addWidget(right);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({900, 1100});  // proportions: the enlarged head needs room for its tokens
  layout->addWidget(split, 1);

  connect(m_text, &QLineEdit::returnPressed, this, &InspectorPanel::request);
  connect(m_inspectButton, &QPushButton::clicked, this, &InspectorPanel::request);
  connect(m_checkpointSlider, &QSlider::valueChanged, this, [this] {
    if (!m_run) return;
    const auto& c = m_run->checkpoints();
    const int i = m_checkpointSlider->value();
    if (i >= 0 && i < static_cast<int>(c.size()))
      m_checkpointLabel->setText(
          QStringLiteral("step %1").arg(c[static_cast<std::size_t>(i)].step));
    if (m_frame) request();  // follow the same text through training
  });
  connect(m_logScale, &QCheckBox::toggled, this, [this](bool on) {
    m_heatmap->setLogScale(on);
    m_heatmap->requestReplot();
  });
  connect(m_scoresBox, &QCheckBox::toggled, this, &InspectorPanel::setShowScores);
  connect(m_grid, &widgets::HeadGrid::headActivated, this,
          [this](int layer, int head) { selectHead(layer, head); });
  connect(m_heatmap, &widgets::AttentionHeatmap::cellHovered, this,
          [this](int query, int key, double value) {
            if (!m_frame || query < 0 || key < 0 || query >= m_frame->pieces.size() ||
                key >= m_frame->pieces.size())
              return;
            m_hover->setText(QStringLiteral("%1 -> %2: %3 %4")
                                 .arg(m_frame->pieces[query], m_frame->pieces[key])
                                 .arg(value, 0, 'g', 4)
                                 .arg(m_scores ? QStringLiteral("(score)") : QString()));
          });
  connect(&m_controller, &InspectionController::inspected, this, &InspectorPanel::showFrame);
  connect(&m_controller, &InspectionController::failed, this, [this](const QString& message) {
    m_status->setText(QStringLiteral("Cannot inspect: %1").arg(message));
    emit inspectionFailed(message);
  });
  refreshCheckpoints();
}

InspectorPanel::~InspectorPanel() = default;

void InspectorPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  // Only when shown: building a large model's inspector takes seconds of CPU.
  if (!m_frame && m_run && !m_run->checkpoints().empty()) request();
}

void InspectorPanel::setRuns(const QList<RunSession*>& runs) {
  RunSession* run = runs.isEmpty() ? nullptr : runs.first();
  if (run == m_run) return;
  if (m_run) disconnect(m_run, nullptr, this, nullptr);
  m_run = run;
  m_frame.reset();
  if (m_run)
    connect(m_run, &RunSession::checkpointsChanged, this, &InspectorPanel::refreshCheckpoints);
  refreshCheckpoints();
}

void InspectorPanel::setTheme(const widgets::Theme& theme) {
  m_grid->setTheme(theme);
  m_heatmap->setTheme(theme);
}

void InspectorPanel::refreshCheckpoints() {
  const int count = m_run ? static_cast<int>(m_run->checkpoints().size()) : 0;
  const bool atEnd = m_checkpointSlider->value() >= m_checkpointSlider->maximum();
  QSignalBlocker block(m_checkpointSlider);
  m_checkpointSlider->setRange(0, std::max(0, count - 1));
  if (atEnd) m_checkpointSlider->setValue(std::max(0, count - 1));  // newest by default
  m_checkpointSlider->setEnabled(count > 1);
  m_inspectButton->setEnabled(count > 0);
  if (count > 0) {
    const auto& c = m_run->checkpoints()[static_cast<std::size_t>(m_checkpointSlider->value())];
    m_checkpointLabel->setText(QStringLiteral("step %1").arg(c.step));
    if (!m_frame && isVisible()) request();  // a first look without pressing Enter
  } else {
    m_checkpointLabel->setText(QString());
    m_status->setText(m_run ? QStringLiteral("%1 has no checkpoint yet.").arg(m_run->name())
                            : QStringLiteral("Select a run with a checkpoint."));
  }
}

void InspectorPanel::inspect(const QString& text) {
  m_text->setText(text);
  request();
}

bool InspectorPanel::selectCheckpointStep(qint64 step) {
  if (!m_run) return false;
  const auto& c = m_run->checkpoints();
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i].step == step) {
      m_checkpointSlider->setValue(static_cast<int>(i));
      return true;
    }
  }
  return false;
}

void InspectorPanel::request() {
  if (!m_run || m_run->checkpoints().empty()) return;
  const auto& c = m_run->checkpoints()[static_cast<std::size_t>(m_checkpointSlider->value())];
  m_status->setText(QStringLiteral("Inspecting under step %1 ...").arg(c.step));
  m_controller.inspect(c.path, m_text->text());
}

void InspectorPanel::showFrame(const InspectionFrame& frame) {
  m_frame = frame;
  if (m_layer >= frame.layers) m_layer = 0;
  if (m_head >= frame.heads) m_head = 0;
  QString status = QStringLiteral("Step %1: %2 tokens, %3 layers x %4 heads")
                       .arg(frame.step)
                       .arg(frame.pieces.size())
                       .arg(frame.layers)
                       .arg(frame.heads);
  if (frame.truncated)
    status += QStringLiteral(
                  ". The text was cut to the model's maximum of %1 tokens "
                  "(<s> and </s> included).")
                  .arg(frame.maxLength);
  m_status->setText(status);
  std::vector<widgets::Matrix> heads;
  for (int l = 0; l < frame.layers; ++l)
    for (int h = 0; h < frame.heads; ++h) heads.push_back(frame.head(l, h));
  m_grid->setHeads(frame.layers, frame.heads, heads);
  m_grid->setSelected(m_layer, m_head);
  m_grid->setTitle(QStringLiteral("step %1: every layer and head").arg(frame.step));
  m_grid->requestReplot();
  drawHead();
  emit inspected(frame.step);
}

void InspectorPanel::selectHead(int layer, int head) {
  m_layer = layer;
  m_head = head;
  m_grid->setSelected(layer, head);
  m_grid->requestReplot();
  drawHead();
}

void InspectorPanel::setShowScores(bool on) {
  m_scores = on;
  if (m_scoresBox->isChecked() != on) m_scoresBox->setChecked(on);
  drawHead();
}

void InspectorPanel::drawHead() {
  if (!m_frame) return;
  const bool scores = m_scores && m_frame->scores != nullptr;
  m_heatmap->setMatrix(m_frame->head(m_layer, m_head, scores));
  m_heatmap->setTokens(m_frame->pieces);
  m_heatmap->setValueLabel(scores ? (m_frame->residualScores
                                         ? QStringLiteral("residual score (pre-softmax)")
                                         : QStringLiteral("score (pre-softmax)"))
                                  : QStringLiteral("attention weight"));
  m_heatmap->setTitle(
      QStringLiteral("layer %1, head %2, step %3").arg(m_layer).arg(m_head).arg(m_frame->step));
  m_heatmap->requestReplot();
}

}  // namespace attnlab::app
