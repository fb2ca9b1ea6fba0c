#pragma once

#include <QString>
#include <QVector>

#include <vector>

#include "widgets/plots/plot_data.h"
#include "widgets/plots/plot_widget.h"

class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPItemText;
class QCPAxisRect;

namespace attnlab::widgets {

/// A baseline a probe is compared with (e.g. "nearest antecedent", "random").
struct ProbeBaseline {
  QString name;
  double accuracy = 0.0;
};

/// Per-head probe accuracy (layers down, heads across) as a heatmap with the best head
/// framed and named; beside it each layer's best head as a bar, with the baselines as
/// vertical reference lines in the legend.
class ProbeMatrixPlot : public PlotWidget {
  Q_OBJECT
 public:
  explicit ProbeMatrixPlot(QWidget* parent = nullptr);

  /// Accuracy in [0, 1] per head: rows = layers, cols = heads.
  void setAccuracies(const Matrix& accuracy);
  void setBaselines(const QVector<ProbeBaseline>& baselines);
  /// The quantity on the colour scale (default "accuracy").
  void setValueLabel(const QString& label);
  /// (layer, head) of the best head; (-1, -1) without data.
  QPoint bestHead() const { return m_best; }
  double bestAccuracy() const;
  QCPAxisRect* matrixRect() const;
  QCPAxisRect* barRect() const { return m_barRect; }

  /// Frames (layer, head) as the selected head (a dashed frame; (-1, -1) clears it).
  void setSelectedHead(int layer, int head);
  QPoint selectedHead() const { return m_selected; }
  /// The centre of (layer, head)'s cell in customPlot() pixel coordinates (for tests and
  /// tooltips); (-1, -1) without data or outside the matrix.
  QPoint cellCentre(int layer, int head) const;

 signals:
  /// A click on the matrix landed on (layer, head)'s cell.
  void headClicked(int layer, int head);

 protected:
  void applyThemeToContent() override;

 private:
  void rebuild();
  void placeSelectedFrame();

  Matrix m_acc;
  QVector<ProbeBaseline> m_baselines;
  QPoint m_best{-1, -1};
  QPoint m_selected{-1, -1};
  QCPItemRect* m_selectedFrame = nullptr;
  QCPColorMap* m_map = nullptr;
  QCPColorScale* m_scale = nullptr;
  QCPItemRect* m_frame = nullptr;
  QCPItemText* m_label = nullptr;
  QCPAxisRect* m_barRect = nullptr;
};

}  // namespace attnlab::widgets
