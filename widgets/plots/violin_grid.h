#pragma once

#include <QString>
#include <QStringList>

#include <vector>

#include "widgets/plots/density.h"
#include "widgets/plots/plot_widget.h"

class QCPAxisRect;
class QCPMarginGroup;

namespace attnlab::widgets {

class ViolinRowPlottable;

/// The colour class of a violin by its median (RealFormer's code): BLUE below the low
/// threshold, YELLOW between, RED above the high one.
enum class ViolinClass { Blue, Yellow, Red };

/// What the violins measure: axis label, unit, class thresholds and the value bounds the
/// density must respect.
struct ViolinScale {
  QString quantity;
  QString unit;
  double lowThreshold = 0.0;   ///< median below: BLUE
  double highThreshold = 1.0;  ///< median above: RED
  double lowerBound = 0.0;     ///< densities are clipped here (entropy >= 0)
  double upperBound = 1e300;   ///< and here (JSD in bits <= 1)

  /// Row entropy in nats: RED > 4.5, YELLOW 1.5 to 4.5, BLUE < 1.5.
  static ViolinScale entropyNats();
  /// Adjacent-layer Jensen-Shannon divergence in bits: BLUE < 0.25, YELLOW to 0.75, RED.
  static ViolinScale jsdBits();
  /// "entropy (nats)"
  QString axisLabel() const;
  ViolinClass classify(double median) const;
};

/// A grid of violins: one row per layer (or layer pair), within a row the heads ordered by
/// median. Each violin is a Gaussian KDE (Silverman bandwidth) with its median (solid) and
/// quartiles (dashed) marked, filled by its colour class. Used for attention entropy and for
/// adjacent-layer JSD.
class ViolinGrid : public PlotWidget {
  Q_OBJECT
 public:
  explicit ViolinGrid(QWidget* parent = nullptr);

  void setScale(const ViolinScale& scale);
  const ViolinScale& scale() const { return m_scale; }
  /// Raw samples per (row, head), index row * heads + head; densities and quartiles are
  /// computed here.
  void setSamples(int rows, int heads, const std::vector<std::vector<double>>& samples);
  /// Precomputed statistics per (row, head), same indexing.
  void setStats(int rows, int heads, std::vector<ViolinStats> stats);
  /// Row names (default "L0", "L1", ...; for JSD e.g. "L0-L1").
  void setRowLabels(const QStringList& labels);

  int rows() const { return m_rows; }
  int heads() const { return m_heads; }
  /// Violins drawn (rows x heads minus heads without finite samples).
  int violinCount() const;
  /// Heads of `row` from left to right (ascending median).
  std::vector<int> headOrder(int row) const;
  ViolinClass violinClass(int row, int head) const;
  /// The axis rect of `row`, for tests that look at the image.
  QCPAxisRect* rowRect(int row) const;

 protected:
  void applyThemeToContent() override;

 private:
  void rebuild();

  ViolinScale m_scale = ViolinScale::entropyNats();
  int m_rows = 0, m_heads = 0;
  std::vector<ViolinStats> m_stats;
  QStringList m_rowLabels;
  std::vector<QCPAxisRect*> m_rects;
  std::vector<ViolinRowPlottable*> m_rowPlots;
  QCPMarginGroup* m_group = nullptr;
};

}  // namespace attnlab::widgets
