#include "app/gui/panels/attention_panel.h"
#include "app/gui/panels/heads_splitter.h"

#include "app/gui/panels/figure_files.h"
#include "app/gui/panels/followed_run.h"
#include "app/gui/panels/placeholder_stack.h"
#include "app/gui/panels/refresh_throttle.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab::app {

namespace {
// Tokens of a probe sequence shown in the sequence chooser.
constexpr int kPreviewTokens = 8;

QString hoverHint() {
  return QStringLiteral("Hover over the matrix to read a weight (query token → key token).");
}

// SentencePiece marks a word start with U+2581; as text that is a space.
QString previewOf(const QStringList& pieces, int length) {
  QString text;
  const int n = std::min<int>(length, kPreviewTokens);
  for (int i = 0; i < n; ++i) {
    QString piece = pieces[i];
    piece.replace(QChar(0x2581), QLatin1Char(' '));
    if (i > 0 && !piece.startsWith(QLatin1Char(' ')) && pieces[i - 1].startsWith(QLatin1Char('<')))
      text += QLatin1Char(' ');  // after <s> or [CLS]-like specials
    text += piece;
  }
  text = text.simplified();
  if (length > n) text += QStringLiteral(" …");
  return text;
}
}  // namespace

AttentionPanel::AttentionPanel(QWidget* parent) : QWidget(parent) {
  m_refresh = new RefreshThrottle(this, [this] { refresh(); });
  m_page = new PlaceholderStack(QStringLiteral("attentionPlaceholder"), this);
  QVBoxLayout* layout = m_page->fillParentWithColumn();
  QWidget* content = m_page->content();
  layout->addLayout(buildToolbar(content));
  layout->addWidget(buildHeads(content), 1);
  connectStepControls();
  connectViewControls();
  refresh();
}

QHBoxLayout* AttentionPanel::buildToolbar(QWidget* content) {
  auto* bar = new QHBoxLayout;
  bar->setSpacing(8);
  addStepControls(bar, content);
  bar->addSpacing(12);
  addViewControls(bar, content);
  return bar;
}

void AttentionPanel::addStepControls(QHBoxLayout* bar, QWidget* content) {
  auto* stepTitle = new QLabel(QStringLiteral("Step"), content);
  m_slider = new QSlider(Qt::Horizontal, content);
  m_slider->setObjectName(QStringLiteral("attentionStepSlider"));
  m_slider->setMinimumWidth(160);
  m_slider->setPageStep(1);
  m_slider->setTickPosition(QSlider::TicksBelow);
  m_slider->setToolTip(
      QStringLiteral("The snapshot step (snapshots are taken at steps 0, 1, 2, "
                     "4, 8, ..., every log.snapshot_every steps and the last)"));
  stepTitle->setBuddy(m_slider);
  m_stepLabel = new QLabel(content);
  m_stepLabel->setObjectName(QStringLiteral("attentionStepLabel"));
  m_stepLabel->setMinimumWidth(m_stepLabel->fontMetrics().horizontalAdvance(
      QStringLiteral("step 1000000 · 100 of 100 · reading…")));
  m_follow = new QCheckBox(QStringLiteral("Follow latest"), content);
  m_follow->setObjectName(QStringLiteral("attentionFollow"));
  m_follow->setChecked(true);
  m_follow->setToolTip(QStringLiteral("Jump to each new snapshot as training writes it"));
  bar->addWidget(stepTitle);
  bar->addWidget(m_slider, 1);
  bar->addWidget(m_stepLabel);
  bar->addWidget(m_follow);
}

void AttentionPanel::addViewControls(QHBoxLayout* bar, QWidget* content) {
  auto* sequenceTitle = new QLabel(QStringLiteral("Sequence"), content);
  m_sequenceBox = new QComboBox(content);
  m_sequenceBox->setObjectName(QStringLiteral("attentionSequence"));
  m_sequenceBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_sequenceBox->setToolTip(QStringLiteral("The probe sequence whose attention is shown"));
  sequenceTitle->setBuddy(m_sequenceBox);
  m_logScale = new QCheckBox(QStringLiteral("Log scale"), content);
  m_logScale->setObjectName(QStringLiteral("attentionLogScale"));
  m_logScale->setToolTip(QStringLiteral("Log colour scale: shows the structure of weak weights"));
  m_guidance = new QCheckBox(QStringLiteral("Guidance target"), content);
  m_guidance->setObjectName(QStringLiteral("attentionGuidance"));
  m_guidance->setChecked(true);
  m_guidance->setToolTip(
      QStringLiteral("Draw the guided head's target pattern over its attention"));
  m_guidance->setVisible(false);
  bar->addWidget(sequenceTitle);
  bar->addWidget(m_sequenceBox);
  bar->addSpacing(12);
  bar->addWidget(m_logScale);
  bar->addWidget(m_guidance);
}

QSplitter* AttentionPanel::buildHeads(QWidget* content) {
  m_splitter = newHeadsSplitter(content, QStringLiteral("attentionHeadGrid"), m_grid,
                                [this](QWidget* parent) { return buildEnlargedHead(parent); });
  return m_splitter;
}

QWidget* AttentionPanel::buildEnlargedHead(QWidget* parent) {
  auto* right = new QWidget(parent);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->setSpacing(2);
  m_heatmap = new widgets::AttentionHeatmap(right);
  m_heatmap->setObjectName(QStringLiteral("attentionHeatmap"));
  m_hover = new QLabel(hoverHint(), right);
  m_hover->setObjectName(QStringLiteral("attentionHover"));
  m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_hover->setContentsMargins(6, 2, 6, 2);
  rightLayout->addWidget(m_heatmap, 1);
  rightLayout->addWidget(m_hover);
  return right;
}

void AttentionPanel::connectStepControls() {
  // Programmatic moves are made under a QSignalBlocker, so this is the person's hand.
  connect(m_slider, &QSlider::valueChanged, this, [this](int index) {
    m_follow->setChecked(false);
    if (index < 0 || index >= static_cast<int>(m_steps.size())) return;
    m_wantedStep = m_steps[static_cast<std::size_t>(index)];
    updateStepLabel();
    // The read is asked on the refresh timer: scrubbing asks for one frame per frame.
    m_refresh->request();
  });
  connect(m_follow, &QCheckBox::toggled, this, [this](bool on) {
    if (!on || m_steps.empty()) return;
    selectStepIndex(static_cast<int>(m_steps.size()) - 1);
    m_refresh->request();
  });
}

void AttentionPanel::connectViewControls() {
  connect(m_sequenceBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    if (i < 0) return;
    m_sequence = i;
    m_frameDirty = true;
    if (m_run && m_run->snapshot(m_wantedStep) == nullptr) m_requestedStep = -1;
    refresh();
  });
  connect(m_logScale, &QCheckBox::toggled, this, [this](bool on) {
    m_heatmap->setLogScale(on);
    m_heatmap->requestReplot();
  });
  connect(m_guidance, &QCheckBox::toggled, this, &AttentionPanel::redrawHeatmap);
  connect(m_grid, &widgets::HeadGrid::headActivated, this, [this](int layer, int head) {
    m_layer = layer;
    m_head = head;
    redrawHeatmap();
  });
  connect(m_heatmap, &widgets::AttentionHeatmap::cellHovered, this, &AttentionPanel::showHover);
}

void AttentionPanel::redrawHeatmap() {
  if (const SnapshotFrame* f = m_run ? m_run->snapshot(m_shownStep) : nullptr) drawHeatmap(*f);
}

AttentionPanel::~AttentionPanel() = default;

bool AttentionPanel::followLatest() const {
  return m_follow->isChecked();
}

void AttentionPanel::setFollowLatest(bool on) {
  m_follow->setChecked(on);
}

QString AttentionPanel::hoverText() const {
  return m_hover->text();
}

void AttentionPanel::setRuns(const QList<RunSession*>& runs) {
  RunSession* run = firstOpenRun(runs);
  if (!switchFollowedRun(m_run, run, this)) return;
  m_steps.clear();
  m_wantedStep = m_requestedStep = m_shownStep = -1;
  m_layer = m_head = m_sequence = 0;
  m_tokens.clear();
  {
    const QSignalBlocker block(m_follow);
    m_follow->setChecked(true);
  }
  m_guidance->setVisible(false);
  m_stepsDirty = m_metaDirty = m_frameDirty = true;
  if (run != nullptr) {
    connect(run, &RunSession::snapshotStepsChanged, this, [this] {
      m_stepsDirty = true;
      m_refresh->request();
    });
    connect(run, &RunSession::snapshotLoaded, this, [this](qint64 step) {
      // A frame for a step the slider has left is kept by the session, not drawn.
      if (step != m_wantedStep) return;
      m_frameDirty = true;
      m_refresh->request();
    });
    connect(run, &RunSession::metadataChanged, this, [this] {
      m_metaDirty = true;
      m_refresh->request();
    });
    connect(run, &QObject::destroyed, this, [this] { m_refresh->request(); });
  }
  if (isVisible()) refresh();
}

void AttentionPanel::setTheme(const widgets::Theme& theme) {
  m_theme = theme;
  m_grid->setTheme(theme);
  m_heatmap->setTheme(theme);
}

void AttentionPanel::refresh() {
  m_refresh->cancel();
  if (!m_run) {
    m_page->showPlaceholder(
        QStringLiteral("Select a run in the Runs list to see its attention snapshots."));
    return;
  }
  if (!isVisible()) return;
  if (m_metaDirty) fillSequences();
  if (m_stepsDirty) syncSteps();
  if (m_steps.empty()) {
    m_page->showPlaceholder(
        QStringLiteral("No attention snapshots yet: the first is written at step 0/1."));
    return;
  }
  m_page->showContent();
  if (m_wantedStep >= 0 && m_requestedStep != m_wantedStep) {
    m_requestedStep = m_wantedStep;
    m_run->requestSnapshot(m_wantedStep);  // may answer at once (snapshotLoaded) when cached
  }
  const SnapshotFrame* frame = m_run->snapshot(m_wantedStep);
  if (frame != nullptr && (m_frameDirty || m_shownStep != m_wantedStep)) {
    m_frameDirty = false;
    m_shownStep = m_wantedStep;
    drawFrame(*frame);
  }
  updateStepLabel();
}

void AttentionPanel::fillSequences() {
  m_metaDirty = false;
  m_frameDirty = true;
  const QSignalBlocker block(m_sequenceBox);
  m_sequenceBox->clear();
  const auto& probe = m_run->probeTokens();
  for (int s = 0; s < static_cast<int>(probe.size()); ++s)
    m_sequenceBox->addItem(QStringLiteral("%1: %2").arg(s).arg(
        previewOf(probe[static_cast<std::size_t>(s)], m_run->probeLength(s))));
  if (m_sequence >= m_sequenceBox->count()) m_sequence = 0;
  m_sequenceBox->setCurrentIndex(m_sequence);
}

void AttentionPanel::syncSteps() {
  m_stepsDirty = false;
  m_steps = m_run->snapshotSteps();
  const int n = static_cast<int>(m_steps.size());
  {
    const QSignalBlocker block(m_slider);
    m_slider->setRange(0, std::max(0, n - 1));
  }
  if (n == 0) {
    m_wantedStep = -1;
    return;
  }
  int index = n - 1;
  if (!followLatest() && m_wantedStep >= 0) {
    // Keep the step the person chose (the nearest one at or before it if it is gone).
    const auto it = std::upper_bound(m_steps.begin(), m_steps.end(), m_wantedStep);
    index = std::max(0, static_cast<int>(it - m_steps.begin()) - 1);
  }
  selectStepIndex(index);
}

void AttentionPanel::selectStepIndex(int index) {
  {
    const QSignalBlocker block(m_slider);
    m_slider->setValue(index);
  }
  m_wantedStep = m_steps[static_cast<std::size_t>(index)];
  updateStepLabel();
}

int AttentionPanel::realLength(const SnapshotFrame& frame) const {
  const int probe = m_run ? m_run->probeLength(m_sequence) : 0;
  return probe > 0 ? std::min(probe, frame.length) : frame.length;
}

void AttentionPanel::drawFrame(const SnapshotFrame& frame) {
  if (m_sequence >= frame.sequences) m_sequence = 0;
  const int length = realLength(frame);
  std::vector<widgets::Matrix> heads;
  heads.reserve(static_cast<std::size_t>(frame.layers) * frame.heads);
  bool guided = false;
  for (int l = 0; l < frame.layers; ++l)
    for (int h = 0; h < frame.heads; ++h) {
      heads.push_back(frame.head(l, m_sequence, h, length));
      guided = guided || !m_run->guidancePatternName(l, h).isEmpty();
    }
  m_layer = std::clamp(m_layer, 0, std::max(0, frame.layers - 1));
  m_head = std::clamp(m_head, 0, std::max(0, frame.heads - 1));
  m_grid->setDiverging(frame.signedWeights);  // differential attention's signed maps
  m_grid->setHeads(frame.layers, frame.heads, heads);
  m_grid->setSelected(m_layer, m_head);
  m_grid->setTitle(
      QStringLiteral("All heads · step %1 · sequence %2").arg(frame.step).arg(m_sequence));
  m_grid->requestReplot();
  m_guidance->setVisible(guided);
  drawHeatmap(frame);
}

void AttentionPanel::drawHeatmap(const SnapshotFrame& frame) {
  const int length = realLength(frame);
  const widgets::Matrix matrix = frame.head(m_layer, m_sequence, m_head, length);
  if (!matrix.isValid()) return;
  // Differential attention's signed maps on a diverging scale around 0.
  m_heatmap->setDiverging(frame.signedWeights);
  m_heatmap->setValueLabel(frame.signedWeights ? QStringLiteral("signed: p1 - lambda p2")
                                               : QStringLiteral("attention weight"));
  m_heatmap->setMatrix(matrix);
  m_heatmap->setBand(m_run->bandHalfWidth(m_layer));
  m_tokens.clear();
  const auto& probe = m_run->probeTokens();
  if (m_sequence < static_cast<int>(probe.size()))
    m_tokens = probe[static_cast<std::size_t>(m_sequence)].mid(0, matrix.rows);
  if (m_tokens.size() != matrix.rows) m_tokens.clear();
  m_heatmap->setTokens(m_tokens);  // indices when the log has no tokens
  const QString pattern = m_run->guidancePatternName(m_layer, m_head);
  if (!pattern.isEmpty() && m_guidance->isChecked())
    m_heatmap->setGuidance(m_run->guidanceTarget(m_layer, m_head, m_sequence));
  else
    m_heatmap->setGuidance(widgets::Matrix());
  QString title =
      QStringLiteral("Layer %1 · head %2 · step %3").arg(m_layer).arg(m_head).arg(frame.step);
  if (!pattern.isEmpty()) title += QStringLiteral(" · guided: %1").arg(pattern);
  m_heatmap->setTitle(title);
  m_hover->setText(hoverHint());
  m_heatmap->requestReplot();
}

void AttentionPanel::updateStepLabel() {
  if (m_wantedStep < 0) {
    m_stepLabel->clear();
    return;
  }
  const auto it = std::find(m_steps.begin(), m_steps.end(), m_wantedStep);
  QString text = QStringLiteral("step %1 · %2 of %3")
                     .arg(m_wantedStep)
                     .arg(static_cast<int>(it - m_steps.begin()) + 1)
                     .arg(static_cast<qsizetype>(m_steps.size()));
  if (m_shownStep != m_wantedStep) text += QStringLiteral(" · reading…");
  m_stepLabel->setText(text);
}

void AttentionPanel::showHover(int query, int key, double value) {
  auto token = [this](int i) {
    return i >= 0 && i < m_tokens.size() ? QStringLiteral("“%1” (%2)").arg(m_tokens[i]).arg(i)
                                         : QStringLiteral("token %1").arg(i);
  };
  m_hover->setText(
      QStringLiteral("%1 → %2: %3").arg(token(query), token(key), QString::number(value, 'f', 4)));
}

QString AttentionPanel::exportCurrentFigure(const QString& path,
                                            const widgets::ExportOptions& options) {
  return exportPlotFile(heatmap(), path, options);
}

}  // namespace attnlab::app
