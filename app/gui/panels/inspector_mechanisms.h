#pragma once

// What the Inspect tab shows of an inspection's attention mechanisms beside its maps: gated
// attention's output gate of the selected layer per head and token (Qiu et al. 2025: how much
// of each head's context reached W_O for this text), and softmax1's learned sink logits per
// layer and head (how much of each head's attention may go nowhere). Each part is hidden when
// the checkpoint's model has no such mechanism, the whole strip when it has neither.

#include "app/gui/inspection_frame.h"
#include "widgets/plots/theme.h"

#include <QWidget>

class QLabel;

namespace attnlab::widgets {
class HeadValueMap;
class MatrixHeatmap;
}  // namespace attnlab::widgets

namespace attnlab::app {

class InspectorMechanisms : public QWidget {
  Q_OBJECT
 public:
  explicit InspectorMechanisms(QWidget* parent = nullptr);

  /// Shows `frame`'s gate of `layer` and its sink logits with (layer, head) framed.
  void showFrame(const InspectionFrame& frame, int layer, int head);
  void setTheme(const widgets::Theme& theme);

  /// The gate view (heads down, tokens across) and the sink logits (layers x heads).
  widgets::MatrixHeatmap* gateMap() const { return m_gate; }
  widgets::HeadValueMap* sinkMap() const { return m_sinks; }
  bool gateShown() const;
  bool sinksShown() const;

 private:
  void showGate(const InspectionFrame& frame, int layer);
  void showSinks(const InspectionFrame& frame, int layer, int head);

  widgets::MatrixHeatmap* m_gate = nullptr;
  widgets::HeadValueMap* m_sinks = nullptr;
};

}  // namespace attnlab::app
