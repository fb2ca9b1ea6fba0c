#pragma once

// The Attention tab: the probe batch's attention snapshots of one run (the first selected).
// A layer x head grid of thumbnails and one head enlarged with its tokens, a step slider
// over the snapshot steps that follows the newest one until moved by hand, the probe
// sequence, and the guidance target of guided heads as an overlay.

#include "app/gui/panels/run_view.h"
#include "app/gui/run_session.h"
#include "widgets/plots/attention_heatmap.h"
#include "widgets/plots/head_grid.h"
#include "widgets/plots/theme.h"

#include <QList>
#include <QPointer>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <vector>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QSlider;
class QSplitter;

namespace attnlab::app {

class PlaceholderStack;
class RefreshThrottle;

class AttentionPanel : public QWidget, public RunView {
  Q_OBJECT
 public:
  explicit AttentionPanel(QWidget* parent = nullptr);
  ~AttentionPanel() override;

  /// The runs selected in the sidebar; the panel shows the first (none: a placeholder).
  void setRuns(const QList<RunSession*>& runs) override;
  void setTheme(const widgets::Theme& theme) override;
  /// File > Export figure on this tab.
  QString exportCurrentFigure(const QString& path, const widgets::ExportOptions& options) override;

  /// The run shown, or nullptr.
  RunSession* run() const { return m_run; }
  /// The snapshot step chosen (slider), -1 when there is none; the step drawn lags it
  /// until the frame has been read.
  std::int64_t currentStep() const { return m_wantedStep; }
  std::int64_t shownStep() const { return m_shownStep; }
  /// Whether the slider jumps to each new snapshot (on by default; moving it turns it off).
  bool followLatest() const;
  void setFollowLatest(bool on);
  /// The enlarged head and the probe sequence shown.
  int selectedLayer() const { return m_layer; }
  int selectedHead() const { return m_head; }
  int sequence() const { return m_sequence; }
  /// The hover read-out under the heatmap ("from → to: weight"), or its hint.
  QString hoverText() const;

  widgets::HeadGrid* headGrid() const { return m_grid; }
  widgets::AttentionHeatmap* heatmap() const { return m_heatmap; }

 protected:
 private:
  /// Step slider, step, Follow latest; sequence, log scale, guidance target.
  QHBoxLayout* buildToolbar(QWidget* content);
  void addStepControls(QHBoxLayout* bar, QWidget* content);
  void addViewControls(QHBoxLayout* bar, QWidget* content);
  /// The layer x head grid beside the enlarged head and its hover read-out.
  QSplitter* buildHeads(QWidget* content);
  QWidget* buildEnlargedHead(QWidget* parent);
  void connectStepControls();
  void connectViewControls();

  void refresh();
  void syncSteps();
  void fillSequences();
  void selectStepIndex(int index);
  void drawFrame(const SnapshotFrame& frame);
  void drawHeatmap(const SnapshotFrame& frame);
  /// The enlarged head again (another head, the guidance toggle), from the frame shown.
  void redrawHeatmap();
  int realLength(const SnapshotFrame& frame) const;
  void updateStepLabel();
  void showHover(int query, int key, double value);

  QPointer<RunSession> m_run;
  std::vector<std::int64_t> m_steps;  // the run's snapshot steps, slider index -> step
  std::int64_t m_wantedStep = -1;     // chosen on the slider
  std::int64_t m_requestedStep = -1;  // last step asked of the session
  std::int64_t m_shownStep = -1;      // drawn now
  int m_layer = 0, m_head = 0, m_sequence = 0;
  QStringList m_tokens;  // the enlarged head's tokens (real ones only)
  bool m_stepsDirty = false, m_metaDirty = false, m_frameDirty = false;
  RefreshThrottle* m_refresh = nullptr;  // redraws at most every 40 ms, while shown
  widgets::Theme m_theme = widgets::Theme::light();

  PlaceholderStack* m_page = nullptr;  // the snapshots, or why there are none
  QSlider* m_slider = nullptr;
  QLabel* m_stepLabel = nullptr;
  QCheckBox* m_follow = nullptr;
  QComboBox* m_sequenceBox = nullptr;
  QCheckBox* m_logScale = nullptr;
  QCheckBox* m_guidance = nullptr;
  QSplitter* m_splitter = nullptr;
  widgets::HeadGrid* m_grid = nullptr;
  widgets::AttentionHeatmap* m_heatmap = nullptr;
  QLabel* m_hover = nullptr;
};

}  // namespace attnlab::app
