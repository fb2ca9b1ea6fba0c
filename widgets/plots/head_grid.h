#pragma once

#include <vector>

#include "widgets/plots/colour_maps.h"
#include "widgets/plots/plot_data.h"
#include "widgets/plots/plot_widget.h"

class QCPColorMap;
class QCPItemRect;
class QSpinBox;

namespace attnlab::widgets {

/// The thumbnail side HeadGrid draws by default (cells).
constexpr int kHeadThumbnailCells = 64;

/// The thumbnails of HeadGrid: each rows x cols row-major head block-averaged down to at most
/// `cells` per side (attention mass kept per block; non-finite cells skipped), read in place;
/// a null pointer gives a 1 x 1 zero. Large inputs are split over two threads. Callers on
/// another thread can make them ahead of drawing and hand them to setThumbnails().
std::vector<Matrix> headThumbnails(const std::vector<const float*>& heads, int rows, int cols,
                                   int cells = kHeadThumbnailCells);

/// The "model view": every layer x head attention matrix as a small image (layers down,
/// heads across), with a layer/head selector above it. Clicking a head, or Open in the
/// selector, asks for that head (headActivated); the grid itself opens nothing.
class HeadGrid : public PlotWidget {
  Q_OBJECT
 public:
  explicit HeadGrid(QWidget* parent = nullptr);

  /// One matrix per (layer, head), index layer * heads + head. Matrices larger than the
  /// thumbnail resolution are block-averaged down (attention mass is kept per block).
  void setHeads(int layers, int heads, const std::vector<Matrix>& matrices);
  /// The same from one rows x cols row-major array per head (index layer * heads + head),
  /// read in place (a 12 x 12 inspection of 512 tokens is 150 MB: no per-head copies). A
  /// null pointer draws an empty thumbnail.
  void setHeads(int layers, int heads, const std::vector<const float*>& matrices, int rows,
                int cols);
  /// Thumbnails made already by headThumbnails() at thumbnailResolution() (drawn as given: no
  /// block means on this thread).
  void setThumbnails(int layers, int heads, const std::vector<Matrix>& thumbnails);
  int thumbnailResolution() const { return m_maxCells; }
  /// Each head on its own colour range (default; shows structure in weak heads) or all
  /// heads on one shared range (compares strength).
  void setNormalisePerHead(bool on);
  /// Largest thumbnail side in cells (default 64).
  void setThumbnailResolution(int cells);
  void setColourMap(ColourMap map);
  /// Signed maps (differential attention): a diverging scale symmetric around 0, each
  /// thumbnail over [-max|v|, +max|v|] (per head or over the grid, as for the sequential map).
  /// Takes effect at the next setHeads / setThumbnails.
  void setDiverging(bool on) { m_diverging = on; }
  bool diverging() const { return m_diverging; }

  /// Highlights a head and moves the selector to it (no signal).
  /// What the columns are: one per head (the default: the axis says "head", ticks 0 to H-1,
  /// the head box shown) or, with `perHead` false, one matrix per layer that no head owns
  /// (rollout, layer norms): the axis says `label`, no tick names a head, no head box.
  void setColumnsPerHead(bool perHead, const QString& label = QString());
  bool columnsPerHead() const { return m_columnsPerHead; }
  void setSelected(int layer, int head);
  int selectedLayer() const { return m_selLayer; }
  int selectedHead() const { return m_selHead; }
  /// The head under a plot pixel; false between thumbnails or outside.
  bool headAt(const QPointF& plotPixel, int* layer, int* head) const;
  int layers() const { return m_layers; }
  int heads() const { return m_heads; }
  /// The thumbnail side actually used (tests).
  int thumbnailCells() const { return m_cells; }
  /// Over a head, with headContextMenuRequested connected: the owner's menu is shown there.
  bool handlesContextMenuAt(const QPoint& globalPos) const override;

 signals:
  /// The user clicked a head or pressed Open: show this head in detail.
  void headActivated(int layer, int head);
  /// A right click (or the menu key) over a head: the owner may offer what to do with that
  /// head at `globalPos` (the grid itself shows no menu; the click does not select).
  void headContextMenuRequested(int layer, int head, const QPoint& globalPos);

 protected:
  void applyThemeToContent() override;

 private:
  void rebuild();
  void placeSelection();
  double slot() const { return 1.0 + m_gap; }

  int m_layers = 0, m_heads = 0, m_cells = 0, m_maxCells = kHeadThumbnailCells;
  double m_gap = 0.12;
  bool m_perHead = true;
  bool m_diverging = false;
  bool m_columnsPerHead = true;
  ColourMap m_colourMap = ColourMap::Viridis;
  std::vector<Matrix> m_thumbs;
  std::vector<QCPColorMap*> m_maps;
  QCPItemRect* m_selection = nullptr;
  int m_selLayer = 0, m_selHead = 0;
  QSpinBox* m_layerBox = nullptr;
  QSpinBox* m_headBox = nullptr;
};

}  // namespace attnlab::widgets
