#pragma once

#include <QStringList>

#include "widgets/plots/colour_maps.h"
#include "widgets/plots/plot_data.h"
#include "widgets/plots/plot_widget.h"

class QCPColorMap;
class QCPColorScale;
class QCPCurve;
class QCPItemText;
class QMouseEvent;

namespace attnlab::widgets {

/// One head's query x key attention matrix as an image: queries down the left (first
/// query on top), keys along the bottom, a colour scale with its label, a hover read-out,
/// an optional log colour scale and an optional guidance-pattern overlay. The matrix is
/// one QCPColorMap (one image, never one item per cell), so 512 x 512 and larger stay fast.
class AttentionHeatmap : public PlotWidget {
  Q_OBJECT
 public:
  explicit AttentionHeatmap(QWidget* parent = nullptr);

  /// Replaces the matrix (rows = queries, cols = keys). Token labels are kept when their
  /// counts still match, otherwise replaced by indices.
  void setMatrix(const Matrix& attention);
  void setMatrix(const float* values, int queries, int keys);
  /// Token labels for the query (y) and key (x) axes; thinned when they do not fit.
  void setTokens(const QStringList& queryTokens, const QStringList& keyTokens);
  /// The same labels on both axes (self-attention).
  void setTokens(const QStringList& tokens) { setTokens(tokens, tokens); }

  /// A guidance target of the same shape drawn translucently over the attention; cells at
  /// zero stay clear. An empty matrix removes it.
  void setGuidance(const Matrix& pattern);
  void setGuidanceVisible(bool visible);
  bool guidanceVisible() const { return m_guidanceVisible; }

  /// A sliding-window layer's band (model.attention_window): the keys at most `halfWidth`
  /// positions from the query, framed by two staircase lines along its edges; the read-out
  /// says when a cell lies outside it. Negative: no band (a global layer).
  void setBand(int halfWidth);
  int bandHalfWidth() const { return m_bandHalfWidth; }
  /// The frame's two edges as drawn, in cell coordinates (empty edges are off the matrix).
  QVector<QPointF> bandEdge(bool upper) const;

  /// Log colour scale; values at or below the floor (max / 1e4, or the smallest positive
  /// value if larger) draw in the lowest colour, the read-out still shows the true value.
  void setLogScale(bool on);
  bool logScale() const { return m_logScale; }
  void setColourMap(ColourMap map);
  /// Signed values (differential attention's p1 - lambda p2): divergingGradient() over a
  /// range symmetric around 0, [-m, m] with m the largest |value| (of the fixed range, when
  /// one is set), so white is 0. A log scale has no meaning for signed values: it is
  /// ignored while this is on. Off: the colour map of setColourMap().
  void setDiverging(bool on);
  bool diverging() const { return m_diverging; }
  /// Colour-scale label with its unit (default "attention probability").
  void setValueLabel(const QString& label);
  QString valueLabel() const;
  /// Fixes the colour range (for comparing heads); autoRange() goes back to the data's.
  void setValueRange(double lower, double upper);
  void autoRange();
  /// The colour range now drawn (the fixed one, or the data's; log scale: its floor).
  double colourLower() const;
  double colourUpper() const;
  /// The data's smallest and largest finite value.
  double dataMin() const { return m_dataMin; }
  double dataMax() const { return m_dataMax; }
  /// The matrix and the guidance target shown (empty when none).
  const Matrix& matrix() const { return m_matrix; }
  const Matrix& guidance() const { return m_guidance; }

  /// The cell under a widget pixel of the plot, false outside the matrix.
  bool cellAt(const QPointF& plotPixel, int* query, int* key) const;
  /// Shows the read-out for a plot pixel, as a mouse move does; returns its text ("" off).
  QString hoverAt(const QPointF& plotPixel);
  /// The read-out text now shown ("" when hidden).
  QString readout() const;
  /// Every n-th query/key label is drawn (1 = all); for tests and the gallery.
  int queryLabelStep() const { return m_queryStep; }
  int keyLabelStep() const { return m_keyStep; }
  int queries() const { return m_matrix.rows; }
  int keys() const { return m_matrix.cols; }

 signals:
  /// The pointer is over (query, key) holding `value`.
  void cellHovered(int query, int key, double value);

 protected:
  void applyThemeToContent() override;
  void afterLayout() override;

 private:
  void fillColourMap();
  void fillGuidance();
  void fillBand();
  void updateAxes();
  void applyRange();
  /// Linear or log colouring and the colour bar's ticks, as logActive() says.
  void applyScaleType();
  bool updateLabelSteps();
  bool logActive() const { return m_logScale && !m_diverging; }

  Matrix m_matrix;
  Matrix m_guidance;
  QStringList m_queryTokens, m_keyTokens;
  QCPColorMap* m_map = nullptr;
  QCPColorMap* m_guidanceMap = nullptr;
  QCPCurve* m_bandEdges[2] = {nullptr, nullptr};  ///< below and above the diagonal
  int m_bandHalfWidth = -1;
  QCPColorScale* m_scale = nullptr;
  QCPItemText* m_readout = nullptr;
  ColourMap m_colourMap = ColourMap::Viridis;
  bool m_logScale = false;
  bool m_diverging = false;
  bool m_guidanceVisible = true;
  bool m_fixedRange = false;
  double m_rangeLo = 0.0, m_rangeHi = 1.0;  // fixed range, or the data's
  double m_dataMin = 0.0, m_dataMax = 1.0, m_minPositive = 1.0;
  int m_queryStep = 1, m_keyStep = 1;
};

}  // namespace attnlab::widgets
