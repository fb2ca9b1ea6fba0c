#pragma once

// The Inspect tab: a text of the researcher's own, a probe sentence or a line of a text file
// run through one checkpoint of the run (a slider over its checkpoints, so one sentence can
// be followed through training), with the layer x head grid, one head enlarged with its
// tokens and the hover read-out, a log colour scale, the pre-softmax scores (RealFormer's
// residual scores where the run uses them), ASA's keep-mask, a guidance target drawn over
// the head, and a second checkpoint or run side by side on one shared colour scale. The
// model runs on InspectionController's threads (one for the shown inspection, one for the
// compared one); each keeps its recent checkpoints' inspectors and frames between requests,
// and the shown one prefetches the text under the slider's neighbouring checkpoints.
// A view selector switches the maps between the weights, the pre-softmax scores, the rollout
// after each layer, the norms per head and the layer norms (all made in the same inspection
// job, so switching redraws only); the logit-lens panel below shows each layer's prediction
// for every token, and clicking a token masks it and inspects again.

#include "app/gui/inspection_controller.h"
#include "app/gui/panels/run_view.h"
#include "app/gui/run_session.h"
#include "widgets/plots/theme.h"

#include <QList>
#include <QPointer>
#include <QString>
#include <QWidget>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QMenu;
class QPushButton;
class QSlider;
class QSplitter;

namespace attnlab::widgets {
class AttentionHeatmap;
class HeadGrid;
}  // namespace attnlab::widgets

namespace attnlab::app {

class InspectorMechanisms;
class InspectorSourceBar;
class LensPanel;
class ModelCache;
class QueryKeyMapWindow;

class InspectorPanel : public QWidget, public RunView {
  Q_OBJECT
 public:
  explicit InspectorPanel(QWidget* parent = nullptr);
  ~InspectorPanel() override;

  /// The runs selected in the sidebar; the panel inspects the first one's checkpoints and
  /// offers the others under "Compare with".
  void setRuns(const QList<RunSession*>& runs) override;
  void setTheme(const widgets::Theme& theme) override;
  /// File > Export figure on this tab.
  QString exportCurrentFigure(const QString& path, const widgets::ExportOptions& options) override;
  /// Where the inspections and the query-key maps borrow their models (the window's cache).
  void setModels(std::shared_ptr<ModelCache> models);
  /// The query-key map of `layer`, `head` (-1: every head of the layer) of `runDirectory` at
  /// `step`, in a window of its own that follows the theme and deletes itself when closed
  /// (what the head grid's menu does).
  QueryKeyMapWindow* openQueryKeyMap(const QString& runDirectory, qint64 step, int layer, int head);

  /// Inspects `text` under the checkpoint the slider points at (as Enter does).
  void inspect(const QString& text);
  /// Moves the checkpoint slider to the checkpoint of `step` (re-inspects the text shown).
  bool selectCheckpointStep(qint64 step);
  void selectHead(int layer, int head);
  /// The scores view (on) or the weights view (off).
  void setShowScores(bool on);
  /// Shows `view` in the grid and the enlarged map (what the view selector does): a redraw
  /// from the frame when it holds the view (every view but the scores, which are asked for
  /// when first shown).
  void showView(InspectView view);
  InspectView view() const { return m_view; }
  /// Masks `position` (0 = <s>) when not masked, else unmasks it, and inspects the text again
  /// (what clicking a token in the logit lens does).
  void toggleMask(int position);
  /// The positions to be masked in the next inspection.
  const QList<int>& maskPositions() const { return m_masked; }

  /// The inspection shown (nullopt before the first one).
  const std::optional<InspectionFrame>& frame() const { return m_frame; }
  /// The inspection shown beside it (nullopt when "Compare with" is off or not yet there).
  const std::optional<InspectionFrame>& compareFrame() const { return m_compareFrame; }
  int selectedLayer() const { return m_layer; }
  int selectedHead() const { return m_head; }
  widgets::HeadGrid* headGrid() const { return m_grid; }
  widgets::AttentionHeatmap* heatmap() const { return m_heatmap; }
  widgets::AttentionHeatmap* compareHeatmap() const { return m_compareHeatmap; }
  InspectorSourceBar* sourceBar() const { return m_source; }
  LensPanel* lensPanel() const { return m_lens; }
  /// The output gate and sink logits under the enlarged head (hidden without either).
  InspectorMechanisms* mechanisms() const { return m_mechanisms; }
  InspectionController& controller() { return m_controller; }
  /// The menu a right click on a head of the grid opened last (tests trigger its actions).
  QMenu* headMenu() const { return m_headMenu; }

 signals:
  /// An inspection was drawn (the grid and the enlarged head show it).
  void inspected(qint64 step);
  /// The compared inspection was drawn beside the enlarged head.
  void compared(qint64 step);
  void inspectionFailed(const QString& message);

 protected:
  /// Shown with a run and nothing inspected yet: the text in the box is inspected at once.
  void showEvent(QShowEvent* event) override;

 private:
  // The window's parts, top to bottom.
  QHBoxLayout* buildTextBar();        ///< the text and Inspect
  QHBoxLayout* buildCheckpointBar();  ///< the checkpoint slider and Compare with
  QHBoxLayout* buildToggles();        ///< log scale, scores, ASA keep-mask, guidance target
  QSplitter* buildHeads();            ///< the layer x head grid beside the enlarged head(s)
  QSplitter* buildMapsAndLens();      ///< the heads above the logit lens
  void buildViewShortcuts();          ///< Alt+1 ... Alt+5: the views in the selector's order
  QWidget* buildEnlargedHeads(QWidget* parent);
  void connectTextSources();
  void connectViewControls();
  void connectControllers();

  void refreshCheckpoints();
  void refreshCompareChoices();
  void request();
  /// Inspects `text` (and its comparison, when on) with the options the toggles ask for.
  void requestText(const QString& text);
  void requestCompare(const QString& text);
  /// Asks again for the text shown when a toggle needs something the frame lacks.
  void requestMissing();
  void showFrame(const InspectionFrame& frame);
  /// The same text under the checkpoints beside the slider's, made while the thread is idle,
  /// so one step along the slider repaints from memory (not while a run trains here).
  void prefetchNeighbours();
  void showCompareFrame(const InspectionFrame& frame);
  void drawHead();
  /// The grid of the view shown: layers x heads, or one map per layer.
  void drawGrid();
  /// One frame's matrix as the toggles ask: the ASA keep-mask, a view, or the weights (also
  /// while the view's data is on its way); `valueLabel` says what it holds, `weights` whether
  /// it is the weights (drawn on a diverging scale when signed).
  widgets::Matrix matrixToShow(const InspectionFrame& frame, bool asa, QString& valueLabel,
                               bool& weights) const;
  /// The heatmap's colouring and tooltip for what `frame`'s matrix shown on it is.
  void describeMaps(widgets::AttentionHeatmap* map, const InspectionFrame& frame,
                    bool weights) const;
  /// The sliding-window band to frame for the shown layer of `frame` (-1: none).
  int bandOf(const InspectionFrame& frame) const;
  QString headCaption(bool asa) const;
  widgets::Matrix drawShownHead(bool asa, QString& valueLabel);
  void drawComparedHead(const widgets::Matrix& shown, bool asa, QString& valueLabel);
  /// Both heads on the range of the two together, and the note that says so.
  void shareColourScale(const QString& valueLabel);
  void showHover(int query, int key, double value);
  /// The head grid's menu for a head: its query-key map, or every head's of its layer.
  void showHeadMenu(int layer, int head, const QPoint& globalPos);
  void updateToggles();
  InspectionRequestOptions requestOptions() const;
  /// The logit-lens panel is open (not collapsed in the splitter under the maps).
  bool lensShown() const;

  QPointer<RunSession> m_run;
  QList<QPointer<RunSession>> m_runs;
  std::shared_ptr<ModelCache> m_models;  ///< null: each controller and map its own
  widgets::Theme m_theme = widgets::Theme::light();
  InspectionController m_controller;
  InspectionController m_compareController;
  std::optional<InspectionFrame> m_frame;
  std::optional<InspectionFrame> m_compareFrame;
  QString m_compareTarget;  ///< what the compared view shows ("step 4", "run b, step 8")
  int m_layer = 0, m_head = 0;
  InspectView m_view = InspectView::Weights;
  QList<int> m_masked;  ///< ascending

  QLineEdit* m_text = nullptr;
  QPushButton* m_inspectButton = nullptr;
  InspectorSourceBar* m_source = nullptr;
  QSlider* m_checkpointSlider = nullptr;
  QLabel* m_checkpointLabel = nullptr;
  QCheckBox* m_logScale = nullptr;
  QComboBox* m_viewCombo = nullptr;
  QCheckBox* m_asaBox = nullptr;
  QComboBox* m_guidanceCombo = nullptr;
  QComboBox* m_compareCombo = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_compareStatus = nullptr;
  QLabel* m_hover = nullptr;
  widgets::HeadGrid* m_grid = nullptr;
  widgets::AttentionHeatmap* m_heatmap = nullptr;
  widgets::AttentionHeatmap* m_compareHeatmap = nullptr;
  LensPanel* m_lens = nullptr;
  InspectorMechanisms* m_mechanisms = nullptr;
  QSplitter* m_mapsAndLens = nullptr;
  bool m_lensCollapsed = false;  ///< the user closed the lens in the splitter
  QPointer<QMenu> m_headMenu;
};

}  // namespace attnlab::app
