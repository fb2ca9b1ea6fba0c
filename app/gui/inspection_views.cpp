#include "app/gui/inspection_views.h"

#include <limits>

namespace attnlab::app {

QString inspectViewName(InspectView view) {
  switch (view) {
    case InspectView::Weights:
      return QStringLiteral("weights");
    case InspectView::Scores:
      return QStringLiteral("pre-softmax scores");
    case InspectView::Rollout:
      return QStringLiteral("rollout");
    case InspectView::HeadNorms:
      return QStringLiteral("norms per head");
    case InspectView::LayerNorms:
      return QStringLiteral("layer norms");
  }
  return {};
}

QString inspectViewValueLabel(InspectView view, bool residualScores) {
  switch (view) {
    case InspectView::Weights:
      return QStringLiteral("attention weight");
    case InspectView::Scores:
      return residualScores ? QStringLiteral("residual score (pre-softmax)")
                            : QStringLiteral("score (pre-softmax)");
    case InspectView::Rollout:
      return QStringLiteral("rollout (share of the key's input)");
    case InspectView::HeadNorms:
      return QStringLiteral("||alpha f_h(x_j)||");
    case InspectView::LayerNorms:
      return QStringLiteral("||sum_h alpha f_h(x_j)||");
  }
  return {};
}

bool isPerLayerView(InspectView view) {
  return view == InspectView::Rollout || view == InspectView::LayerNorms;
}

int viewColumns(const InspectionFrame& frame, InspectView view) {
  return isPerLayerView(view) ? 1 : frame.heads;
}

const float* viewData(const InspectionFrame& frame, InspectView view, int layer, int head) {
  const std::size_t cells = static_cast<std::size_t>(frame.length) * frame.length;
  const bool layerOk = layer >= 0 && layer < frame.layers;
  const bool headOk = head >= 0 && head < frame.heads;
  const auto at = [&](const std::vector<std::shared_ptr<const float>>& v,
                      std::size_t offset) -> const float* {
    if (!layerOk || static_cast<std::size_t>(layer) >= v.size() || !v[layer]) return nullptr;
    return v[static_cast<std::size_t>(layer)].get() + offset;
  };
  switch (view) {
    case InspectView::Weights:
      return frame.headData(layer, head);
    case InspectView::Scores:
      return frame.headData(layer, head, true);
    case InspectView::Rollout:
      return frame.rollout && layerOk
                 ? frame.rollout->data() + static_cast<std::size_t>(layer) * cells
                 : nullptr;
    case InspectView::HeadNorms:
      return headOk ? at(frame.headNorms, static_cast<std::size_t>(head) * cells) : nullptr;
    case InspectView::LayerNorms:
      return at(frame.layerNorms, 0);
  }
  return nullptr;
}

std::vector<const float*> viewPointers(const InspectionFrame& frame, InspectView view) {
  std::vector<const float*> out;
  const int columns = viewColumns(frame, view);
  for (int l = 0; l < frame.layers; ++l)
    for (int h = 0; h < columns; ++h) {
      const float* p = viewData(frame, view, l, h);
      if (!p) return {};
      out.push_back(p);
    }
  return out;
}

widgets::Matrix viewMatrix(const InspectionFrame& frame, InspectView view, int layer, int head) {
  const float* first = viewData(frame, view, layer, head);
  if (!first) return {};
  const std::size_t cells = static_cast<std::size_t>(frame.length) * frame.length;
  return widgets::Matrix(frame.length, frame.length, std::vector<float>(first, first + cells));
}

double valueNorm(const InspectionFrame& frame, int layer, int head, int key) {
  if (layer < 0 || static_cast<std::size_t>(layer) >= frame.valueNorms.size() || head < 0 ||
      head >= frame.heads || key < 0 || key >= frame.length || !frame.valueNorms[layer])
    return std::numeric_limits<double>::quiet_NaN();
  return frame.valueNorms[static_cast<std::size_t>(layer)]
      .get()[static_cast<std::size_t>(head) * frame.length + key];
}

QString hoverText(const InspectionFrame& frame, InspectView view, int layer, int head, int query,
                  int key, double value) {
  QString text = QStringLiteral("%1 -> %2: %3 %4")
                     .arg(frame.pieces.value(query), frame.pieces.value(key))
                     .arg(inspectViewValueLabel(view, frame.residualScores))
                     .arg(value, 0, 'g', 4);
  const std::size_t cell = static_cast<std::size_t>(query) * frame.length + key;
  if (view == InspectView::HeadNorms) {
    const float* weights = frame.headData(layer, head);
    if (weights)
      text += QStringLiteral(" (weight %1, ||f(x_j)|| %2)")
                  .arg(weights[cell], 0, 'g', 4)
                  .arg(valueNorm(frame, layer, head, key), 0, 'g', 4);
  } else if (view == InspectView::LayerNorms && frame.heads > 0) {
    double weight = 0, norm = 0;
    for (int h = 0; h < frame.heads; ++h) {
      if (const float* w = frame.headData(layer, h)) weight += w[cell];
      norm += valueNorm(frame, layer, h, key);
    }
    text += QStringLiteral(" (heads' mean weight %1, mean ||f_h(x_j)|| %2)")
                .arg(weight / frame.heads, 0, 'g', 4)
                .arg(norm / frame.heads, 0, 'g', 4);
  }
  return text;
}

}  // namespace attnlab::app
