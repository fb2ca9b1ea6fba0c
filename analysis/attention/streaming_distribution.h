#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace attnlab::analysis {

/// What a violin or box plot of one statistic needs, computed once from the stream so that
/// reports and plots never see the (unbounded) raw values.
struct DistributionSummary {
  std::int64_t count = 0;
  double mean = 0, min = 0, max = 0;
  double q1 = 0, median = 0, q3 = 0;  ///< numpy's linear quantiles, to within one fine bin
  double resolution = 0;  ///< fine bin width: bound on the quantiles' error (see quantile())
  std::vector<double> histogramEdges;  ///< coarse histogram, bins+1 edges over [lo, hi]
  std::vector<std::int64_t> histogramCounts;
  /// Gaussian KDE on a grid over [min, max], integrates to ~1: Silverman's rule of thumb
  /// 0.9 min(sd, IQR/1.34) n^(-1/5), never narrower than the fine bin width or half the grid
  /// step (the curve is drawn on the grid), with the kernel mass that would fall outside
  /// [min, max] reflected back in (entropy and JSD are bounded, their violins should not
  /// leak past the bounds).
  std::vector<double> kdeX, kdeDensity;
  double kdeBandwidth = 0;
  std::int64_t clamped = 0;  ///< values that fell outside [lo, hi] and were put in the edge bins
};

/// Indices of `heads` by ascending median, as violin rows are ordered (heads of one layer, or
/// of one layer pair). Empty distributions (NaN median) go last; equal medians keep their
/// index order.
std::vector<int> orderByMedian(std::span<const DistributionSummary> heads);

/// Fixed memory whatever the number of values: a fine histogram over [lo, hi] plus moments.
/// Attention statistics produce one value per query row and head, billions over an
/// evaluation set; storing them to sort for quantiles is what this avoids. Quantiles are
/// exact to one fine bin width, and two summaries of the same range merge exactly (integer
/// counts), so per-thread or per-shard accumulators can be combined without bias.
class StreamingDistribution {
 public:
  /// An empty, rangeless distribution: only merge() into it (it adopts the other's range).
  StreamingDistribution() = default;
  /// Throws std::invalid_argument unless lo < hi (both finite) and fineBins >= 1.
  StreamingDistribution(double lo, double hi, int fineBins = 4096);

  /// Values outside [lo, hi] are clamped into the edge bins (and counted: clampedCount());
  /// mean, min and max use the value itself. NaN is not counted (nonFiniteCount()).
  void add(double x);
  void addMany(std::span<const float> xs);
  void addMany(std::span<const double> xs);
  /// Same lo, hi and bins required (std::invalid_argument otherwise); a default-constructed
  /// distribution takes the other's range.
  void merge(const StreamingDistribution& other);

  std::int64_t count() const { return m_count; }
  std::int64_t clampedCount() const { return m_clamped; }
  std::int64_t nonFiniteCount() const { return m_nonFinite; }
  double lo() const { return m_lo; }
  double hi() const { return m_hi; }
  int fineBins() const { return static_cast<int>(m_counts.size()); }
  double resolution() const;
  double mean() const;
  /// The q-quantile (0..1) of the values in numpy's default ("linear") convention: with
  /// h = (n - 1) q, x_floor(h) + (h - floor(h)) (x_floor(h)+1 - x_floor(h)) over the sorted
  /// values, each order statistic read from the fine histogram (valueAtRank). Within one fine
  /// bin width of numpy.quantile(values, q) for values inside [lo, hi]; exact at q = 0 and 1
  /// (min and max are kept) and for n <= 2. 0 when empty.
  double quantile(double q) const;
  /// Heap bytes held; the same after ten values as after a billion.
  std::size_t memoryBytes() const;

  DistributionSummary summarise(int histogramBins = 40, int kdePoints = 64) const;

 private:
  void requireRange(const char* where) const;
  /// The value of 0-based rank `rank` among the sorted values: min and max exactly, any
  /// other from its fine bin, the bin's values taken as evenly spread over it.
  double valueAtRank(std::int64_t rank) const;

  double m_lo = 0, m_hi = 0;
  double m_binsPerUnit = 0;  // fine bins / (hi - lo)
  std::vector<std::int64_t> m_counts;
  std::int64_t m_count = 0;
  std::int64_t m_clamped = 0;
  std::int64_t m_nonFinite = 0;
  double m_sum = 0;    // of (x - lo), so the variance keeps its digits far from 0
  double m_sumSq = 0;  // of (x - lo)^2
  double m_min = 0, m_max = 0;
};

}  // namespace attnlab::analysis
