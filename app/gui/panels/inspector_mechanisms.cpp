#include "app/gui/panels/inspector_mechanisms.h"

#include "widgets/plots/head_value_map.h"
#include "widgets/plots/matrix_heatmap.h"

#include <QHBoxLayout>

#include <algorithm>

namespace attnlab::app {

namespace {

// The strip grows with the heads' rows (a title, the token axis and a row per head), from a
// few heads up to a dozen, and stays short enough to leave the enlarged head most of the
// column.
constexpr int kStripMinHeight = 110;
constexpr int kStripMaxHeight = 200;
constexpr int kStripPerHead = 10;
constexpr int kStripAxes = 80;

}  // namespace

InspectorMechanisms::InspectorMechanisms(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_gate = new widgets::MatrixHeatmap(this);
  m_gate->setObjectName(QStringLiteral("inspectGateMap"));
  m_gate->setAxisTitles(QStringLiteral("token"), QStringLiteral("head"));
  m_gate->setValueLabel(QStringLiteral("output gate"));
  // A sigmoid: 0 (the head's context is shut out) to 1 (passed unchanged), always on one
  // scale so layers and texts compare by colour.
  m_gate->setValueRange(std::pair<double, double>{0.0, 1.0});
  m_gate->setToolTip(QStringLiteral(
      "Gated attention (Qiu et al. 2025): sigmoid(X W + b) of the block's input, the factor "
      "that multiplied each head's context at each token before W_O; for element gates the "
      "mean over the head's channels"));
  m_sinks = new widgets::HeadValueMap(this);
  m_sinks->setObjectName(QStringLiteral("inspectSinkMap"));
  m_sinks->setValueLabel(QStringLiteral("sink logit"));
  m_sinks->setToolTip(QStringLiteral(
      "softmax1's learned sink logit per layer and head: a key of value zero in every row's "
      "denominator; the larger it is, the more of the head's attention may go nowhere"));
  layout->addWidget(m_gate, 3);
  layout->addWidget(m_sinks, 1);
  setFixedHeight(kStripMinHeight);
  setVisible(false);
}

bool InspectorMechanisms::gateShown() const {
  return !isHidden() && !m_gate->isHidden();
}

bool InspectorMechanisms::sinksShown() const {
  return !isHidden() && !m_sinks->isHidden();
}

void InspectorMechanisms::showFrame(const InspectionFrame& frame, int layer, int head) {
  showGate(frame, layer);
  showSinks(frame, layer, head);
  const int rows = std::max(frame.heads, frame.layers);
  setFixedHeight(std::clamp(kStripAxes + kStripPerHead * rows, kStripMinHeight, kStripMaxHeight));
  setVisible(!frame.gates.empty() || !frame.sinkLogits.empty());
}

void InspectorMechanisms::showGate(const InspectionFrame& frame, int layer) {
  const bool has = layer >= 0 && layer < static_cast<int>(frame.gates.size()) &&
                   frame.gates[static_cast<std::size_t>(layer)];
  m_gate->setVisible(has);
  if (!has) return;
  const float* first = frame.gates[static_cast<std::size_t>(layer)].get();
  widgets::HeatmapPanel panel;
  panel.title = QStringLiteral("output gate of layer %1").arg(layer);
  panel.values = widgets::Matrix(
      frame.heads, frame.length,
      std::vector<float>(first, first + static_cast<std::size_t>(frame.heads) * frame.length));
  panel.columnLabels = frame.pieces;
  for (int h = 0; h < frame.heads; ++h) panel.rowLabels << QString::number(h);
  m_gate->setPanels({panel});
}

void InspectorMechanisms::showSinks(const InspectionFrame& frame, int layer, int head) {
  const auto cells = static_cast<std::size_t>(frame.layers) * frame.heads;
  const bool has = !frame.sinkLogits.empty() && frame.sinkLogits.size() == cells;
  m_sinks->setVisible(has);
  if (!has) return;
  m_sinks->setValues(widgets::Matrix(frame.layers, frame.heads, frame.sinkLogits));
  m_sinks->setSelectedHead(layer, head);
}

void InspectorMechanisms::setTheme(const widgets::Theme& theme) {
  m_gate->setTheme(theme);
  m_sinks->setTheme(theme);
}

}  // namespace attnlab::app
