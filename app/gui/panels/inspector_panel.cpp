#include "app/gui/panels/inspector_panel.h"
#include "app/gui/panels/heads_splitter.h"

#include "analysis/attention/attention_statistics.h"
#include "analysis/attention/guidance_patterns.h"
#include "app/gui/inspection_cache.h"
#include "app/gui/inspection_views.h"
#include "app/gui/panels/figure_files.h"
#include "app/gui/panels/inspector_mechanisms.h"
#include "app/gui/panels/inspector_source_bar.h"
#include "app/gui/panels/lens_panel.h"
#include "app/gui/panels/query_key_map_window.h"
#include "core/tokenizer/piece_roles.h"
#include "widgets/plots/attention_heatmap.h"
#include "widgets/plots/head_grid.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace attnlab::app {

namespace {

const QString kDefaultText = QStringLiteral("the cat that the dog chased ran up the tree .");
const QString kHoverHint = QStringLiteral("Hover a cell: from-token, to-token, value");
const QString kNoAsaTip = QStringLiteral(
    "This run does not use ASA (adversarial self-attention): it has no keep-mask to show");
const QString kAsaTip = QStringLiteral(
    "Show the ASA adversary's keep-mask of the selected layer (1 kept, 0 masked) instead of "
    "the attention");

// The guidance target of `pattern` over a frame's pieces (padding excluded); empty for "none".
widgets::Matrix guidanceFor(const InspectionFrame& frame, const QString& pattern) {
  if (pattern.isEmpty()) return {};
  std::vector<std::string> pieces;
  int real = 0;
  for (const QString& p : frame.pieces) {
    pieces.push_back(p.toStdString());
    if (!core::isPaddingPiece(pieces.back())) real = static_cast<int>(pieces.size());
  }
  const int T = static_cast<int>(pieces.size());
  return widgets::Matrix(T, T,
                         analysis::guidancePatternMatrix(pattern.toStdString(), pieces, real));
}

// The weights' colour-bar label: what a cell is, where it is no probability.
QString weightsLabel(core::AttentionMaps maps) {
  switch (maps) {
    case core::AttentionMaps::Signed:
      return QStringLiteral("signed: p1 - lambda p2");
    case core::AttentionMaps::Unnormalised:
      return QStringLiteral("attention weight (not probabilities: rows need not sum to 1)");
    case core::AttentionMaps::Probabilities:
      break;
  }
  return QStringLiteral("attention weight");
}

// The heatmap's tooltip over the weights: how to read the cells of a map that is not softmax.
QString weightsTip(core::AttentionMaps maps) {
  switch (maps) {
    case core::AttentionMaps::Signed:
      return QStringLiteral(
          "Differential attention: each weight is p1 - lambda p2, the difference of two softmax "
          "maps (blue negative, white 0, red positive, on a range symmetric around 0); a row "
          "sums to 1 - lambda. The analyses read |s| / sum |s| per row.");
    case core::AttentionMaps::Unnormalised:
      return QStringLiteral(
          "These weights are not probabilities (softmax1, softpick, sigmoid or clipped "
          "softmax): a row need not sum to 1. The analyses read |s| / sum |s| per row.");
    case core::AttentionMaps::Probabilities:
      break;
  }
  return {};
}

}  // namespace

InspectorPanel::InspectorPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);
  layout->addLayout(buildTextBar());
  m_source = new InspectorSourceBar(this);
  layout->addWidget(m_source);
  layout->addLayout(buildCheckpointBar());
  layout->addLayout(buildToggles());
  m_status = new QLabel(QStringLiteral("Select a run with a checkpoint, type a text, press "
                                       "Enter."),
                        this);
  m_status->setObjectName(QStringLiteral("inspectStatus"));
  m_status->setWordWrap(true);
  m_status->setTextFormat(Qt::PlainText);  // texts and messages may hold "<s>"
  layout->addWidget(m_status);
  layout->addWidget(buildMapsAndLens(), 1);

  connectTextSources();
  connectViewControls();
  connectControllers();
  buildViewShortcuts();
  refreshCheckpoints();
}

QHBoxLayout* InspectorPanel::buildTextBar() {
  auto* textBar = new QHBoxLayout;
  textBar->addWidget(new QLabel(QStringLiteral("Text"), this));
  m_text = new QLineEdit(kDefaultText, this);
  m_text->setObjectName(QStringLiteral("inspectText"));
  m_text->setToolTip(QStringLiteral("Any text: Enter runs it through the checkpoint"));
  textBar->addWidget(m_text, 1);
  m_inspectButton = new QPushButton(QStringLiteral("Inspect"), this);
  m_inspectButton->setObjectName(QStringLiteral("inspectButton"));
  textBar->addWidget(m_inspectButton);
  return textBar;
}

QHBoxLayout* InspectorPanel::buildCheckpointBar() {
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(QStringLiteral("Checkpoint"), this));
  m_checkpointSlider = new QSlider(Qt::Horizontal, this);
  m_checkpointSlider->setObjectName(QStringLiteral("inspectCheckpointSlider"));
  m_checkpointSlider->setMinimumWidth(160);
  m_checkpointSlider->setPageStep(1);
  bar->addWidget(m_checkpointSlider, 1);
  m_checkpointLabel = new QLabel(this);
  m_checkpointLabel->setObjectName(QStringLiteral("inspectCheckpointLabel"));
  m_checkpointLabel->setMinimumWidth(80);
  bar->addWidget(m_checkpointLabel);
  bar->addSpacing(8);
  bar->addWidget(new QLabel(QStringLiteral("Compare with"), this));
  m_compareCombo = new QComboBox(this);
  m_compareCombo->setObjectName(QStringLiteral("inspectCompare"));
  m_compareCombo->setToolTip(QStringLiteral(
      "Show the same text under another checkpoint of this run, or under another selected "
      "run, beside the enlarged head on one shared colour scale"));
  m_compareCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  bar->addWidget(m_compareCombo);
  return bar;
}

QHBoxLayout* InspectorPanel::buildToggles() {
  auto* toggles = new QHBoxLayout;
  m_logScale = new QCheckBox(QStringLiteral("Log colour scale"), this);
  m_logScale->setObjectName(QStringLiteral("inspectLogScale"));
  toggles->addWidget(m_logScale);
  toggles->addWidget(new QLabel(QStringLiteral("View"), this));
  m_viewCombo = new QComboBox(this);
  m_viewCombo->setObjectName(QStringLiteral("inspectView"));
  for (const InspectView view : kInspectViewOrder)
    m_viewCombo->addItem(inspectViewName(view), static_cast<int>(view));
  m_viewCombo->setToolTip(QStringLiteral(
      "What the maps show (Alt+1 ... Alt+5): the attention weights; the logits before the "
      "softmax (RealFormer's running residual scores where the run uses them); the rollout "
      "after each layer (Abnar & Zuidema 2020: heads' mean + identity, multiplied up the "
      "layers; one map per layer); ||alpha f_h(x_j)||, how large each head's weighted value "
      "vector is (Kobayashi et al. 2020); ||sum_h alpha f_h(x_j)||, the layer's (one map per "
      "layer)"));
  toggles->addWidget(m_viewCombo);
  m_asaBox = new QCheckBox(QStringLiteral("ASA keep-mask"), this);
  m_asaBox->setObjectName(QStringLiteral("inspectAsaMask"));
  m_asaBox->setEnabled(false);
  m_asaBox->setToolTip(kNoAsaTip);
  toggles->addWidget(m_asaBox);
  toggles->addSpacing(12);
  toggles->addWidget(new QLabel(QStringLiteral("Guidance target"), this));
  m_guidanceCombo = new QComboBox(this);
  m_guidanceCombo->setObjectName(QStringLiteral("inspectGuidance"));
  m_guidanceCombo->setToolTip(QStringLiteral(
      "Draw an attention-guidance pattern (Deshpande & Narasimhan) over the enlarged head: "
      "its target cells are shaded, each row a distribution over keys"));
  m_guidanceCombo->addItem(QStringLiteral("none"), QString());
  for (const char* pattern : analysis::kGuidancePatterns)
    m_guidanceCombo->addItem(QString::fromLatin1(pattern), QString::fromLatin1(pattern));
  toggles->addWidget(m_guidanceCombo);
  toggles->addStretch(1);
  return toggles;
}

QSplitter* InspectorPanel::buildMapsAndLens() {
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->setObjectName(QStringLiteral("inspectMapsAndLens"));
  splitter->addWidget(buildHeads());
  // The output gate and sink logits, across the tab's width between the maps and the lens
  // (whose table leaves room below it), so the enlarged head keeps its height.
  m_mechanisms = new InspectorMechanisms(splitter);
  m_mechanisms->setObjectName(QStringLiteral("inspectMechanisms"));
  splitter->addWidget(m_mechanisms);
  m_lens = new LensPanel(splitter);
  splitter->addWidget(m_lens);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 0);
  splitter->setStretchFactor(2, 1);
  splitter->setChildrenCollapsible(true);
  m_mapsAndLens = splitter;
  // Opening a collapsed lens asks for the lens the frame was made without.
  connect(splitter, &QSplitter::splitterMoved, this, [this] {
    m_lensCollapsed = m_mapsAndLens->sizes().value(m_mapsAndLens->indexOf(m_lens)) == 0;
    requestMissing();
  });
  return splitter;
}

void InspectorPanel::buildViewShortcuts() {
  for (int i = 0; i < kInspectViews; ++i) {
    auto* shortcut =
        new QShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)), this);
    shortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(shortcut, &QShortcut::activated, this, [this, i] { showView(kInspectViewOrder[i]); });
  }
}

QSplitter* InspectorPanel::buildHeads() {
  return newHeadsSplitter(this, QStringLiteral("inspectHeadGrid"), m_grid,
                          [this](QWidget* parent) { return buildEnlargedHeads(parent); });
}

QWidget* InspectorPanel::buildEnlargedHeads(QWidget* parent) {
  auto* right = new QWidget(parent);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  auto* maps = new QHBoxLayout;
  m_heatmap = new widgets::AttentionHeatmap(right);
  m_heatmap->setObjectName(QStringLiteral("inspectHeatmap"));
  m_compareHeatmap = new widgets::AttentionHeatmap(right);
  m_compareHeatmap->setObjectName(QStringLiteral("inspectCompareHeatmap"));
  m_compareHeatmap->setVisible(false);
  maps->addWidget(m_heatmap, 1);
  maps->addWidget(m_compareHeatmap, 1);
  m_compareStatus = new QLabel(right);
  m_compareStatus->setObjectName(QStringLiteral("inspectCompareStatus"));
  m_compareStatus->setTextFormat(Qt::PlainText);
  m_compareStatus->setWordWrap(true);
  m_compareStatus->setVisible(false);
  m_hover = new QLabel(kHoverHint, right);
  m_hover->setObjectName(QStringLiteral("inspectHover"));
  m_hover->setTextFormat(Qt::PlainText);
  m_hover->setTextInteractionFlags(Qt::TextSelectableByMouse);
  rightLayout->addLayout(maps, 1);
  rightLayout->addWidget(m_compareStatus);
  rightLayout->addWidget(m_hover);
  return right;
}

void InspectorPanel::connectTextSources() {
  connect(m_text, &QLineEdit::returnPressed, this, &InspectorPanel::request);
  connect(m_inspectButton, &QPushButton::clicked, this, &InspectorPanel::request);
  connect(m_source, &InspectorSourceBar::textPicked, this, &InspectorPanel::inspect);
  connect(m_source, &InspectorSourceBar::fileFailed, this, [this](const QString& message) {
    m_status->setText(message);
    emit inspectionFailed(message);
  });
  connect(m_checkpointSlider, &QSlider::valueChanged, this, [this] {
    if (!m_run) return;
    const auto& c = m_run->checkpoints();
    const int i = m_checkpointSlider->value();
    if (i >= 0 && i < static_cast<int>(c.size()))
      m_checkpointLabel->setText(
          QStringLiteral("step %1").arg(c[static_cast<std::size_t>(i)].step));
    if (m_frame) requestText(m_frame->text);  // follow the same text through training
  });
}

void InspectorPanel::connectViewControls() {
  connect(m_logScale, &QCheckBox::toggled, this, [this](bool on) {
    for (auto* map : {m_heatmap, m_compareHeatmap}) map->setLogScale(on);
    drawHead();  // the shared range is recomputed for the scale
  });
  connect(m_viewCombo, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this] { showView(static_cast<InspectView>(m_viewCombo->currentData().toInt())); });
  connect(m_lens, &LensPanel::maskToggled, this, &InspectorPanel::toggleMask);
  connect(m_asaBox, &QCheckBox::toggled, this, [this] {
    requestMissing();
    drawHead();
  });
  connect(m_guidanceCombo, qOverload<int>(&QComboBox::currentIndexChanged), this,
          &InspectorPanel::drawHead);
  connect(m_compareCombo, qOverload<int>(&QComboBox::activated), this, [this] {
    m_compareFrame.reset();
    if (m_frame) requestCompare(m_frame->text);
    drawHead();
  });
  connect(m_grid, &widgets::HeadGrid::headActivated, this,
          [this](int layer, int head) { selectHead(layer, head); });
  connect(m_heatmap, &widgets::AttentionHeatmap::cellHovered, this, &InspectorPanel::showHover);
  connect(m_grid, &widgets::HeadGrid::headContextMenuRequested, this,
          &InspectorPanel::showHeadMenu);
}

void InspectorPanel::showHeadMenu(int layer, int head, const QPoint& globalPos) {
  if (!m_run || m_run->checkpoints().empty()) return;
  const QString run = m_run->directory();
  const qint64 step =
      m_run->checkpoints()[static_cast<std::size_t>(m_checkpointSlider->value())].step;
  if (m_headMenu) m_headMenu->deleteLater();
  m_headMenu = new QMenu(this);
  m_headMenu->setObjectName(QStringLiteral("inspectHeadMenu"));
  m_headMenu->setAttribute(Qt::WA_DeleteOnClose);
  // A per-layer view's column is no head: only the layer's maps are offered there.
  if (!isPerLayerView(m_view))
    m_headMenu->addAction(
        QStringLiteral("Query-key map of layer %1 head %2...").arg(layer).arg(head), this,
        [this, run, step, layer, head] { openQueryKeyMap(run, step, layer, head); });
  m_headMenu->addAction(QStringLiteral("Query-key maps of layer %1 (every head)...").arg(layer),
                        this, [this, run, step, layer] { openQueryKeyMap(run, step, layer, -1); });
  m_headMenu->popup(globalPos);
}

QueryKeyMapWindow* InspectorPanel::openQueryKeyMap(const QString& runDirectory, qint64 step,
                                                   int layer, int head) {
  // Each map gets a window of its own (its own job), which follows the theme.
  auto* window = new QueryKeyMapWindow(this);
  window->setDeleteWhenClosed(true);
  window->setTheme(m_theme);
  window->setModels(m_models);
  window->show();
  QueryKeyMapRequest request;
  request.runDirectory = runDirectory;
  request.step = step;
  request.layer = layer;
  request.head = head;
  window->start(request);
  return window;
}

void InspectorPanel::setModels(std::shared_ptr<ModelCache> models) {
  m_models = models;
  m_controller.setModels(models);
  m_compareController.setModels(models);
}

void InspectorPanel::connectControllers() {
  connect(&m_controller, &InspectionController::inspected, this, &InspectorPanel::showFrame);
  connect(&m_controller, &InspectionController::failed, this, [this](const QString& message) {
    m_status->setText(QStringLiteral("Cannot inspect: %1").arg(message));
    emit inspectionFailed(message);
  });
  connect(&m_compareController, &InspectionController::inspected, this,
          &InspectorPanel::showCompareFrame);
  connect(&m_compareController, &InspectionController::failed, this,
          [this](const QString& message) {
            m_compareStatus->setText(
                QStringLiteral("Cannot inspect %1: %2").arg(m_compareTarget, message));
            m_compareStatus->setVisible(true);
            emit inspectionFailed(message);
          });
}

void InspectorPanel::showHover(int query, int key, double value) {
  if (!m_frame || query < 0 || key < 0 || query >= m_frame->pieces.size() ||
      key >= m_frame->pieces.size())
    return;
  const bool asa = m_asaBox->isChecked() && m_frame->hasAsa;
  QString text = asa ? QStringLiteral("%1 -> %2: keep-mask %3")
                           .arg(m_frame->pieces[query], m_frame->pieces[key])
                           .arg(value, 0, 'g', 4)
                     : hoverText(*m_frame, m_view, m_layer, m_head, query, key, value);
  if (!asa && m_view == InspectView::Weights && m_frame->maps != core::AttentionMaps::Probabilities)
    text += QStringLiteral(" (%1)").arg(m_frame->maps == core::AttentionMaps::Signed
                                            ? QStringLiteral("signed: p1 - lambda p2")
                                            : QStringLiteral("not a probability"));
  m_hover->setText(text);
}

InspectorPanel::~InspectorPanel() = default;

void InspectorPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  // Only when shown: building a large model's inspector takes seconds of CPU.
  if (!m_frame && m_run && !m_run->checkpoints().empty()) request();
}

void InspectorPanel::setRuns(const QList<RunSession*>& runs) {
  m_runs.clear();
  for (RunSession* r : runs) m_runs << QPointer<RunSession>(r);
  RunSession* run = runs.isEmpty() ? nullptr : runs.first();
  if (run != m_run) {
    if (m_run) disconnect(m_run, nullptr, this, nullptr);
    m_run = run;
    m_frame.reset();
    m_compareFrame.reset();
    if (m_run)
      connect(m_run, &RunSession::checkpointsChanged, this, &InspectorPanel::refreshCheckpoints);
    refreshCheckpoints();
  } else {
    refreshCompareChoices();
  }
}

void InspectorPanel::setTheme(const widgets::Theme& theme) {
  m_theme = theme;
  for (QueryKeyMapWindow* map : findChildren<QueryKeyMapWindow*>(Qt::FindDirectChildrenOnly))
    map->setTheme(theme);
  m_grid->setTheme(theme);
  m_heatmap->setTheme(theme);
  m_compareHeatmap->setTheme(theme);
  m_mechanisms->setTheme(theme);
  m_lens->setTheme(theme);
}

void InspectorPanel::refreshCheckpoints() {
  const int count = m_run ? static_cast<int>(m_run->checkpoints().size()) : 0;
  const bool atEnd = m_checkpointSlider->value() >= m_checkpointSlider->maximum();
  QSignalBlocker block(m_checkpointSlider);
  m_checkpointSlider->setRange(0, std::max(0, count - 1));
  if (atEnd) m_checkpointSlider->setValue(std::max(0, count - 1));  // newest by default
  m_checkpointSlider->setEnabled(count > 1);
  m_inspectButton->setEnabled(count > 0);
  refreshCompareChoices();
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

// Entries: off; every checkpoint of the run ("step:S"); every other selected run ("run:i").
void InspectorPanel::refreshCompareChoices() {
  const QString kept = m_compareCombo->currentData().toString();
  QSignalBlocker block(m_compareCombo);
  m_compareCombo->clear();
  m_compareCombo->addItem(QStringLiteral("off"), QStringLiteral("off"));
  if (m_run) {
    for (const auto& c : m_run->checkpoints())
      m_compareCombo->addItem(QStringLiteral("checkpoint at step %1").arg(c.step),
                              QStringLiteral("step:%1").arg(c.step));
  }
  for (int i = 1; i < m_runs.size(); ++i) {
    if (!m_runs[i] || m_runs[i]->checkpoints().empty()) continue;
    m_compareCombo->addItem(QStringLiteral("run %1").arg(m_runs[i]->name()),
                            QStringLiteral("run:%1").arg(i));
  }
  const int at = m_compareCombo->findData(kept);
  m_compareCombo->setCurrentIndex(std::max(0, at));
  if (at < 0 && kept != QLatin1String("off") && !kept.isEmpty()) m_compareFrame.reset();
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

InspectionRequestOptions InspectorPanel::requestOptions() const {
  InspectionRequestOptions options;
  options.scores = m_view == InspectView::Scores;
  options.asaMasks = m_asaBox->isChecked();
  options.beyondWeights = true;  // every view but the scores is then a redraw
  // The lens costs the MLM head at every layer and position (more than the forward pass at
  // 512 tokens with a large vocabulary): only while its panel is open.
  options.lensTop = lensShown() ? 5 : 0;
  options.maskPositions = m_masked;
  return options;
}

void InspectorPanel::request() {
  requestText(m_text->text());
}

void InspectorPanel::requestText(const QString& text) {
  if (!m_run || m_run->checkpoints().empty()) return;
  if (m_frame && text != m_frame->text) m_masked.clear();  // positions of another text
  const auto& c = m_run->checkpoints()[static_cast<std::size_t>(m_checkpointSlider->value())];
  m_status->setText(QStringLiteral("Inspecting under step %1 ...").arg(c.step));
  m_controller.inspect(c.path, text, requestOptions());
  requestCompare(text);
}

void InspectorPanel::requestCompare(const QString& text) {
  const QString choice = m_compareCombo->currentData().toString();
  if (!m_run || choice.isEmpty() || choice == QLatin1String("off")) return;
  QString path;
  if (choice.startsWith(QLatin1String("step:"))) {
    const qint64 step = choice.mid(5).toLongLong();
    for (const auto& c : m_run->checkpoints())
      if (c.step == step) path = c.path;
    m_compareTarget = QStringLiteral("step %1").arg(step);
  } else if (choice.startsWith(QLatin1String("run:"))) {
    const int i = choice.mid(4).toInt();
    RunSession* other = i < m_runs.size() ? m_runs[i].data() : nullptr;
    if (other && !other->checkpoints().empty()) {
      // The other run at the step shown here where it has it, else its newest checkpoint.
      const qint64 step =
          m_run->checkpoints()[static_cast<std::size_t>(m_checkpointSlider->value())].step;
      const auto& list = other->checkpoints();
      const auto same = std::find_if(list.begin(), list.end(),
                                     [step](const CheckpointInfo& c) { return c.step == step; });
      const CheckpointInfo& c = same != list.end() ? *same : list.back();
      path = c.path;
      m_compareTarget = QStringLiteral("run %1, step %2").arg(other->name()).arg(c.step);
    }
  }
  if (path.isEmpty()) return;
  const InspectionRequestOptions options = requestOptions();
  if (m_compareFrame && m_compareFrame->checkpoint == path && m_compareFrame->text == text &&
      InspectionCache::satisfies(*m_compareFrame, options))
    return;  // shown already (the slider moved the other side only)
  m_compareStatus->setText(QStringLiteral("Inspecting %1 ...").arg(m_compareTarget));
  m_compareStatus->setVisible(true);
  m_compareController.inspect(path, text, options);
}

bool InspectorPanel::lensShown() const {
  return !m_lensCollapsed;
}

void InspectorPanel::requestMissing() {
  if (!m_frame) return;
  const bool needScores = m_view == InspectView::Scores && m_frame->scores.empty();
  // A frame of the weights alone is followed by the one with every view (extrasPending).
  const bool needLens =
      lensShown() && m_frame->hasMlmHead && !m_frame->lens && !m_frame->extrasPending;
  const bool needMasks = m_asaBox->isChecked() && m_frame->hasAsa && !m_frame->asaMasks;
  if (needScores || needLens || needMasks) requestText(m_frame->text);
}

void InspectorPanel::showFrame(const InspectionFrame& frame) {
  m_frame = frame;
  if (m_layer >= frame.layers) m_layer = 0;
  if (m_head >= frame.heads) m_head = 0;
  QString status = QStringLiteral("Step %1: %2 tokens, %3 layers x %4 heads (inspected in %5 s%6)")
                       .arg(frame.step)
                       .arg(frame.pieces.size())
                       .arg(frame.layers)
                       .arg(frame.heads)
                       .arg(frame.inspectMs / 1000.0, 0, 'f', 2)
                       .arg(frame.cached ? QStringLiteral(", kept in memory") : QString());
  if (frame.truncated)
    status += QStringLiteral(
                  ". The text was cut to the model's maximum of %1 tokens "
                  "(<s> and </s> included).")
                  .arg(frame.maxLength);
  if (frame.extrasPending) status += QStringLiteral("; rollout, norms and lens follow");
  QStringList masked;
  for (const int p : frame.maskedPositions)
    masked << QStringLiteral("%1 (%2)").arg(p).arg(frame.originalPieces.value(p));
  if (!masked.isEmpty())
    status += QStringLiteral(". Masked: %1").arg(masked.join(QStringLiteral(", ")));
  m_status->setText(status);
  drawGrid();
  updateToggles();
  drawHead();
  m_lens->setFrame(frame);
  prefetchNeighbours();
  emit inspected(frame.step);
}

void InspectorPanel::prefetchNeighbours() {
  QStringList neighbours;
  // A run this process trains gets both cores: the inspector only runs what was asked for.
  const bool training = std::any_of(m_runs.begin(), m_runs.end(),
                                    [](const auto& r) { return r && isActiveHere(r->status()); });
  if (m_run && m_frame && !training) {
    const auto& c = m_run->checkpoints();
    const int at = m_checkpointSlider->value();
    for (int i : {at + 1, at - 1})
      if (i >= 0 && i < static_cast<int>(c.size()))
        neighbours << c[static_cast<std::size_t>(i)].path;
  }
  m_controller.prefetch(neighbours, m_frame ? m_frame->text : QString(), requestOptions());
}

void InspectorPanel::showCompareFrame(const InspectionFrame& frame) {
  m_compareFrame = frame;
  drawHead();
  emit compared(frame.step);
}

void InspectorPanel::selectHead(int layer, int head) {
  m_layer = layer;
  if (!isPerLayerView(m_view)) m_head = head;  // a per-layer grid's column is not a head
  m_grid->setSelected(layer, isPerLayerView(m_view) ? 0 : head);
  m_grid->requestReplot();
  drawHead();
}

void InspectorPanel::setShowScores(bool on) {
  showView(on ? InspectView::Scores : InspectView::Weights);
}

void InspectorPanel::showView(InspectView view) {
  const int index = m_viewCombo->findData(static_cast<int>(view));
  if (m_viewCombo->currentIndex() != index) {
    QSignalBlocker block(m_viewCombo);
    m_viewCombo->setCurrentIndex(index);
  }
  m_view = view;
  m_hover->setText(kHoverHint);  // the last read-out was of another view
  requestMissing();              // scores are captured only when asked for
  drawGrid();
  drawHead();
}

void InspectorPanel::toggleMask(int position) {
  if (!m_frame) return;
  if (m_masked.contains(position))
    m_masked.removeAll(position);
  else
    m_masked.insert(std::lower_bound(m_masked.begin(), m_masked.end(), position), position);
  requestText(m_frame->text);
}

void InspectorPanel::drawGrid() {
  if (!m_frame) return;
  const InspectionFrame& frame = *m_frame;
  // The scores view shows the weights' grid until the scores arrive.
  const InspectView view = viewPointers(frame, m_view).empty() ? InspectView::Weights : m_view;
  const int columns = viewColumns(frame, view);
  const auto& thumbnails = view == InspectView::Weights
                               ? frame.thumbnails
                               : frame.viewThumbnails[static_cast<std::size_t>(view)];
  // Differential attention's signed weights: the grid on the diverging scale too.
  m_grid->setDiverging(view == InspectView::Weights && frame.maps == core::AttentionMaps::Signed);
  if (thumbnails && m_grid->thumbnailResolution() == widgets::kHeadThumbnailCells)
    m_grid->setThumbnails(frame.layers, columns, *thumbnails);
  else
    m_grid->setHeads(frame.layers, columns, viewPointers(frame, view), frame.length, frame.length);
  m_grid->setColumnsPerHead(!isPerLayerView(view), QStringLiteral("all heads (one per layer)"));
  m_grid->setSelected(m_layer, isPerLayerView(view) ? 0 : m_head);
  m_grid->setTitle(isPerLayerView(view) ? QStringLiteral("step %1: %2 after every layer")
                                              .arg(frame.step)
                                              .arg(inspectViewName(view))
                                        : QStringLiteral("step %1: %2 of every layer and head")
                                              .arg(frame.step)
                                              .arg(inspectViewName(view)));
  m_grid->requestReplot();
}

void InspectorPanel::updateToggles() {
  const bool asa = m_frame && m_frame->hasAsa;
  m_asaBox->setEnabled(asa);
  m_asaBox->setToolTip(asa ? kAsaTip : kNoAsaTip);
}

void InspectorPanel::drawHead() {
  if (!m_frame) return;
  const bool asa = m_asaBox->isChecked() && m_frame->hasAsa;
  QString valueLabel = QStringLiteral("attention weight");
  const widgets::Matrix shown = drawShownHead(asa, valueLabel);
  drawComparedHead(shown, asa, valueLabel);
  m_mechanisms->showFrame(*m_frame, m_layer, m_head);
  m_heatmap->requestReplot();
}

widgets::Matrix InspectorPanel::matrixToShow(const InspectionFrame& frame, bool asa,
                                             QString& valueLabel, bool& weights) const {
  weights = false;
  if (asa) {
    valueLabel = QStringLiteral("ASA keep-mask (1 kept, 0 masked)");
    return frame.asaMask(m_layer);
  }
  const widgets::Matrix shown = m_view == InspectView::Weights
                                    ? widgets::Matrix()
                                    : viewMatrix(frame, m_view, m_layer, m_head);
  if (shown.isValid()) {
    valueLabel = inspectViewValueLabel(m_view, frame.residualScores);
    return shown;
  }
  weights = true;  // the weights view, or the weights until the view's data arrives
  valueLabel = weightsLabel(frame.maps);
  return frame.head(m_layer, m_head);
}

void InspectorPanel::describeMaps(widgets::AttentionHeatmap* map, const InspectionFrame& frame,
                                  bool weights) const {
  map->setDiverging(weights && frame.maps == core::AttentionMaps::Signed);
  map->setToolTip(weights ? weightsTip(frame.maps) : QString());
}

int InspectorPanel::bandOf(const InspectionFrame& frame) const {
  // Rollout multiplies the layers' maps: its cells outside one layer's window are not zero.
  // Every other view is one layer's (its weights, scores, head or layer norms).
  return m_view == InspectView::Rollout ? -1 : frame.bandHalfWidth(m_layer);
}

QString InspectorPanel::headCaption(bool asa) const {
  if (asa) return QStringLiteral("layer %1, ASA keep-mask").arg(m_layer);
  if (isPerLayerView(m_view))
    return QStringLiteral("%1 after layer %2").arg(inspectViewName(m_view)).arg(m_layer);
  return QStringLiteral("layer %1, head %2, %3")
      .arg(m_layer)
      .arg(m_head)
      .arg(inspectViewName(m_view));
}

widgets::Matrix InspectorPanel::drawShownHead(bool asa, QString& valueLabel) {
  bool weights = false;
  const widgets::Matrix shown = matrixToShow(*m_frame, asa, valueLabel, weights);
  describeMaps(m_heatmap, *m_frame, weights);
  if (shown.isValid()) {
    m_heatmap->setMatrix(shown);
    m_heatmap->setBand(bandOf(*m_frame));
    m_heatmap->setTokens(m_frame->pieces);
    m_heatmap->setGuidance(guidanceFor(*m_frame, m_guidanceCombo->currentData().toString()));
  }
  m_heatmap->setValueLabel(valueLabel);
  m_heatmap->setTitle(QStringLiteral("%1, step %2").arg(headCaption(asa)).arg(m_frame->step));
  return shown;
}

void InspectorPanel::drawComparedHead(const widgets::Matrix& shown, bool asa, QString& valueLabel) {
  const bool comparing = m_compareCombo->currentData().toString() != QLatin1String("off");
  const bool besides = comparing && m_compareFrame && m_compareFrame->text == m_frame->text;
  m_compareHeatmap->setVisible(comparing);
  if (!comparing) m_compareStatus->setVisible(false);
  // The compared side names its own kind of value where it has one (its scores, its mask).
  bool weights = false;
  const widgets::Matrix other =
      besides ? matrixToShow(*m_compareFrame, asa, valueLabel, weights) : widgets::Matrix();
  if (besides && other.isValid() && shown.isValid()) {
    describeMaps(m_compareHeatmap, *m_compareFrame, weights);
    m_compareHeatmap->setMatrix(other);
    m_compareHeatmap->setBand(bandOf(*m_compareFrame));
    m_compareHeatmap->setTokens(m_compareFrame->pieces);
    m_compareHeatmap->setGuidance(
        guidanceFor(*m_compareFrame, m_guidanceCombo->currentData().toString()));
    m_compareHeatmap->setValueLabel(valueLabel);
    m_compareHeatmap->setTitle(QStringLiteral("%1, %2").arg(headCaption(asa), m_compareTarget));
    shareColourScale(valueLabel);
    m_compareHeatmap->requestReplot();
  } else {
    m_heatmap->autoRange();
    if (besides && !other.isValid()) {
      // The other side has nothing of the kind asked for (a keep-mask of a run without ASA).
      m_compareHeatmap->setVisible(false);
      m_compareStatus->setText(
          QStringLiteral("Right: %1 has no %2.").arg(m_compareTarget, valueLabel));
      m_compareStatus->setVisible(true);
    }
  }
}

void InspectorPanel::shareColourScale(const QString& valueLabel) {
  // One colour scale for both: the range of the two matrices together.
  const double lo = std::min(m_heatmap->dataMin(), m_compareHeatmap->dataMin());
  const double hi = std::max(m_heatmap->dataMax(), m_compareHeatmap->dataMax());
  m_heatmap->setValueRange(lo, hi);
  m_compareHeatmap->setValueRange(lo, hi);
  m_compareStatus->setText(
      QStringLiteral("Left: step %1. Right: %2. Both on one colour scale, %3 to %4 (%5).")
          .arg(m_frame->step)
          .arg(m_compareTarget)
          .arg(m_heatmap->colourLower(), 0, 'g', 4)
          .arg(m_heatmap->colourUpper(), 0, 'g', 4)
          .arg(valueLabel));
  m_compareStatus->setVisible(true);
}

QString InspectorPanel::exportCurrentFigure(const QString& path,
                                            const widgets::ExportOptions& options) {
  return exportPlotFile(heatmap(), path, options);
}

}  // namespace attnlab::app
