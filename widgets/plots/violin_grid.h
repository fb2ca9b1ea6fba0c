#pragma once

#include <QString>
#include <QStringList>

#include <vector>

#include "analysis/attention/colour_classes.h"
#include "analysis/attention/streaming_distribution.h"
#include "widgets/plots/plot_widget.h"

class QCPAxisRect;
class QCPMarginGroup;

namespace attnlab::analysis {
struct AttentionStatisticsResult;
}

namespace attnlab::widgets {

class ViolinRowPlottable;

/// What the violins measure: axis label, unit, colour-class thresholds and the value bounds.
/// The thresholds and the classification are the analysis' (analysis/attention/
/// colour_classes.h), so a violin is coloured exactly as the report names its class.
struct ViolinScale {
  QString quantity;
  QString unit;
  analysis::ColourThresholds thresholds;  ///< median below low: BLUE, above high: RED
  double lowerBound = 0.0;                ///< the quantity's range (entropy >= 0); raw samples
  double upperBound = 1e300;              ///< are summarised over it where it is finite

  /// Row entropy in nats: RED > 4.5, YELLOW 1.5 to 4.5, BLUE < 1.5.
  static ViolinScale entropyNats();
  /// Adjacent-layer Jensen-Shannon divergence in bits: BLUE < 0.25, YELLOW to 0.75, RED;
  /// bounded by [0, 1].
  static ViolinScale jsdBits();
  /// The same in nats (thresholds and bound times ln 2), for reports made with
  /// --jsd-unit nats.
  static ViolinScale jsdNats();
  /// "entropy (nats)"
  QString axisLabel() const;
  /// analysis::colourClass(median, thresholds); None for NaN.
  analysis::ColourClass classify(double median) const;
};

/// Summaries of raw samples per (row, head) through the analysis' own code: every list goes
/// into an analysis::StreamingDistribution over one range shared by the grid (the scale's
/// bounds where finite, else the samples' extremes; the analysis' 4,096 bins) and is
/// summarised by it. Non-finite samples are skipped.
std::vector<analysis::DistributionSummary> summariseSamples(
    const std::vector<std::vector<double>>& samples, const ViolinScale& scale);

/// A grid of violins: one row per layer (or layer pair), within a row the heads ordered by
/// median. It draws what the analysis computed (analysis::DistributionSummary: the kernel
/// density estimate, or the histogram where a summary has no KDE, with the median solid and
/// the quartiles dashed; the colour class; the head order) and computes none of it itself.
/// Used for attention entropy and for adjacent-layer JSD.
class ViolinGrid : public PlotWidget {
  Q_OBJECT
 public:
  explicit ViolinGrid(QWidget* parent = nullptr);

  void setScale(const ViolinScale& scale);
  const ViolinScale& scale() const { return m_scale; }

  /// The analysis' per-head summaries, index row * heads + head (missing ones are empty
  /// heads, drawn as gaps). `colours` (same index) and `headOrder` (per row, a permutation of
  /// the heads) are drawn as given when not empty, e.g. AttentionStatisticsResult's
  /// entropyColours and headOrder; when empty they come from the analysis' functions
  /// (colourClass() with the scale's thresholds, orderByMedian()). Throws
  /// std::invalid_argument when a non-empty `colours` or `headOrder` does not fit the shape.
  void setSummaries(int rows, int heads, std::vector<analysis::DistributionSummary> summaries,
                    std::vector<analysis::ColourClass> colours = {},
                    std::vector<std::vector<int>> headOrder = {});
  /// The entropy violins of an analysis result as they are: nats scale, rows L0, L1, ...,
  /// the result's summaries, colours and head order.
  void showEntropy(const analysis::AttentionStatisticsResult& result);
  /// The adjacent-layer JSD violins of an analysis result: the scale of its JSD unit, rows
  /// "L0-L1", ..., its summaries and colours, heads ordered by median JSD.
  void showAdjacentJsd(const analysis::AttentionStatisticsResult& result);
  /// Raw samples per (row, head) (tests, the gallery, small data): summarised with
  /// summariseSamples() under the current scale, then shown as setSummaries() would.
  void setSamples(int rows, int heads, const std::vector<std::vector<double>>& samples);
  /// Row names (default "L0", "L1", ...; for JSD e.g. "L0-L1").
  void setRowLabels(const QStringList& labels);

  int rows() const { return m_rows; }
  int heads() const { return m_heads; }
  /// Violins drawn (rows x heads minus the empty heads).
  int violinCount() const;
  /// The summary drawn for (row, head).
  const analysis::DistributionSummary& summary(int row, int head) const;
  /// Heads of `row` from left to right (ascending median).
  std::vector<int> headOrder(int row) const;
  analysis::ColourClass violinClass(int row, int head) const;
  /// The axis rect of `row`, for tests that look at the image.
  QCPAxisRect* rowRect(int row) const;

 protected:
  void applyThemeToContent() override;

 private:
  void rebuild();

  ViolinScale m_scale = ViolinScale::entropyNats();
  int m_rows = 0, m_heads = 0;
  std::vector<analysis::DistributionSummary> m_summaries;
  std::vector<analysis::ColourClass> m_colours;  // as given; empty: from the scale
  std::vector<std::vector<int>> m_order;         // as given; empty: orderByMedian()
  QStringList m_rowLabels;
  std::vector<QCPAxisRect*> m_rects;
  std::vector<ViolinRowPlottable*> m_rowPlots;
  QCPMarginGroup* m_group = nullptr;
};

}  // namespace attnlab::widgets
