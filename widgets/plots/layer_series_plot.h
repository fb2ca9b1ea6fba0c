#pragma once

#include <QString>
#include <QStringList>

#include <vector>

#include "widgets/plots/colour_maps.h"
#include "widgets/plots/plot_data.h"
#include "widgets/plots/plot_widget.h"

class QCPColorMap;
class QCPColorScale;

namespace attnlab::widgets {

/// How per-layer series are drawn.
enum class LayerSeriesView {
  Lines,    ///< one line per layer over steps, coloured bottom to top along the colour map
  Heatmap,  ///< layer x step image with a colour scale
};

/// A quantity with one value per layer (or per layer and head) over training steps: ASA's
/// masking proportion, SesameBERT's layer weights, learned temperatures.
class LayerSeriesPlot : public PlotWidget {
  Q_OBJECT
 public:
  explicit LayerSeriesPlot(QWidget* parent = nullptr);

  /// `values` has one row per series (layer) and one column per entry of `steps`
  /// (increasing). `labels` name the rows (default "L0", "L1", ...).
  void setSeries(const QString& quantity, const QString& unit, const std::vector<double>& steps,
                 const Matrix& values, const QStringList& labels = {});
  void setView(LayerSeriesView view);
  /// What the rows are, as the heatmap's row axis says (default "layer"; "layer, head"
  /// for per-head series flattened to rows).
  void setRowAxisTitle(const QString& title);
  LayerSeriesView view() const { return m_view; }
  void setColourMap(ColourMap map);
  int seriesCount() const { return m_values.rows; }
  /// Columns of the heatmap image (steps, or a uniform resampling of uneven steps).
  int heatmapColumns() const;

 protected:
  void applyThemeToContent() override;

 private:
  void rebuild();
  QString valueLabel() const;

  QString m_quantity, m_unit;
  std::vector<double> m_steps;
  Matrix m_values;
  QStringList m_labels;
  QString m_rowTitle = QStringLiteral("layer");
  LayerSeriesView m_view = LayerSeriesView::Lines;
  ColourMap m_colourMap = ColourMap::Viridis;
  QCPColorMap* m_map = nullptr;
  QCPColorScale* m_scale = nullptr;
};

}  // namespace attnlab::widgets
