#pragma once

// The Inspect tab: a text of the researcher's own (or a probe sentence) run through one
// checkpoint of the run (a slider over its checkpoints, so one sentence can be followed
// through training), with the layer x head grid, one head enlarged with its tokens and the
// hover read-out, a log colour scale and the pre-softmax scores (RealFormer's residual
// scores where the run uses them). The model runs on InspectionController's thread; the
// first checkpoint's inspector is built once and reused.

#include "app/gui/inspection_controller.h"
#include "app/gui/run_session.h"
#include "widgets/plots/theme.h"

#include <QList>
#include <QPointer>
#include <QString>
#include <QWidget>

#include <optional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;

namespace attnlab::widgets {
class AttentionHeatmap;
class HeadGrid;
}  // namespace attnlab::widgets

namespace attnlab::app {

class InspectorPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InspectorPanel(QWidget* parent = nullptr);
  ~InspectorPanel() override;

  /// The runs selected in the sidebar; the panel inspects the first one's checkpoints.
  void setRuns(const QList<RunSession*>& runs);
  void setTheme(const widgets::Theme& theme);

  /// Inspects `text` under the checkpoint the slider points at (as Enter does).
  void inspect(const QString& text);
  /// Moves the checkpoint slider to the checkpoint of `step` (re-inspects the text shown).
  bool selectCheckpointStep(qint64 step);
  void selectHead(int layer, int head);
  void setShowScores(bool on);

  /// The inspection shown (nullopt before the first one).
  const std::optional<InspectionFrame>& frame() const { return m_frame; }
  int selectedLayer() const { return m_layer; }
  int selectedHead() const { return m_head; }
  widgets::HeadGrid* headGrid() const { return m_grid; }
  widgets::AttentionHeatmap* heatmap() const { return m_heatmap; }

 signals:
  /// An inspection was drawn (the grid and the enlarged head show it).
  void inspected(qint64 step);
  void inspectionFailed(const QString& message);

 protected:
  /// Shown with a run and nothing inspected yet: the text in the box is inspected at once.
  void showEvent(QShowEvent* event) override;

 private:
  void refreshCheckpoints();
  void request();
  void showFrame(const InspectionFrame& frame);
  void drawHead();

  QPointer<RunSession> m_run;
  InspectionController m_controller;
  std::optional<InspectionFrame> m_frame;
  int m_layer = 0, m_head = 0;
  bool m_scores = false;

  QLineEdit* m_text = nullptr;
  QPushButton* m_inspectButton = nullptr;
  QSlider* m_checkpointSlider = nullptr;
  QLabel* m_checkpointLabel = nullptr;
  QCheckBox* m_logScale = nullptr;
  QCheckBox* m_scoresBox = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_hover = nullptr;
  widgets::HeadGrid* m_grid = nullptr;
  widgets::AttentionHeatmap* m_heatmap = nullptr;
};

}  // namespace attnlab::app
