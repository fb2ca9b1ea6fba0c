#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>
#include <utility>

#include "widgets/plots/plot_data.h"
#include "widgets/plots/plot_widget.h"

class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPItemText;

namespace attnlab::widgets {

/// One matrix to draw: rows go down, columns across. NaN cells are "not applicable".
struct HeatmapPanel {
  QString title;  ///< above the panel (empty: none)
  Matrix values;
  QStringList rowLabels, columnLabels;  ///< tick labels; empty: 0, 1, ...
};

/// Matrices as heatmaps sharing one colour scale (viridis; brighter = larger), in a grid of
/// panels: the all-pairs head JSD, guidance conformity per layer x head. NaN cells are left
/// blank and marked "n/a" so that a missing value is never read as a colour.
class MatrixHeatmap : public PlotWidget {
  Q_OBJECT
 public:
  explicit MatrixHeatmap(QWidget* parent = nullptr);

  /// Replaces the panels; `columns` per row. The colour range spans the finite values of
  /// every panel unless setValueRange() fixed it.
  void setPanels(const QVector<HeatmapPanel>& panels, int columns = 1);
  /// Axis titles of every panel ("head", "layer", ...).
  void setAxisTitles(const QString& columns, const QString& rows);
  /// The quantity and unit on the colour scale.
  void setValueLabel(const QString& label);
  /// Fixes the colour range (e.g. 0..1 for a bounded distance); nullopt: the data's.
  void setValueRange(std::optional<std::pair<double, double>> range);

  int panelCount() const { return static_cast<int>(m_panels.size()); }
  const HeatmapPanel& panel(int i) const { return m_panels[i]; }
  QCPAxisRect* panelRect(int i) const;
  /// The value drawn in cell (row, column) of panel `p`, read back from the colour map
  /// (NaN where the cell is "n/a").
  double drawnCell(int p, int row, int column) const;
  /// Cells marked "n/a" in panel `p`.
  int notApplicableCells(int p) const;
  /// The colour range in use.
  std::pair<double, double> valueRange() const;

 protected:
  void applyThemeToContent() override;

 private:
  void rebuild();

  QVector<HeatmapPanel> m_panels;
  int m_columns = 1;
  QString m_columnTitle = QStringLiteral("head"), m_rowTitle = QStringLiteral("layer");
  std::optional<std::pair<double, double>> m_fixedRange;
  QVector<QCPAxisRect*> m_rects;
  QVector<QCPColorMap*> m_maps;
  QVector<QVector<QCPItemText*>> m_naLabels;
  QCPColorScale* m_scale = nullptr;
};

}  // namespace attnlab::widgets
