#include "analysis/attention/streaming_distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <stdexcept>
#include <string>

namespace attnlab::analysis {

std::vector<int> orderByMedian(std::span<const DistributionSummary> heads) {
  std::vector<int> order(heads.size());
  std::iota(order.begin(), order.end(), 0);
  // NaN would break the sort's ordering; as +infinity it sorts last.
  const auto key = [&](int head) {
    const double m = heads[static_cast<std::size_t>(head)].median;
    return std::isnan(m) ? std::numeric_limits<double>::infinity() : m;
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  return order;
}

StreamingDistribution::StreamingDistribution(double lo, double hi, int fineBins)
    : m_lo(lo), m_hi(hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) {
    throw std::invalid_argument("StreamingDistribution: range [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "] is empty or not finite");
  }
  if (fineBins < 1) {
    throw std::invalid_argument("StreamingDistribution: fineBins must be >= 1, got " +
                                std::to_string(fineBins));
  }
  m_counts.assign(static_cast<std::size_t>(fineBins), 0);
  m_binsPerUnit = fineBins / (hi - lo);
}

void StreamingDistribution::requireRange(const char* where) const {
  if (m_counts.empty()) {
    throw std::invalid_argument(std::string("StreamingDistribution::") + where +
                                ": the distribution has no range (default-constructed)");
  }
}

void StreamingDistribution::add(double x) {
  if (!std::isfinite(x)) {
    ++m_nonFinite;
    return;
  }
  requireRange("add");
  const int last = static_cast<int>(m_counts.size()) - 1;
  int bin;
  if (x < m_lo) {
    bin = 0;
    ++m_clamped;
  } else if (x > m_hi) {
    bin = last;
    ++m_clamped;
  } else {
    bin = std::min(static_cast<int>((x - m_lo) * m_binsPerUnit), last);
  }
  ++m_counts[static_cast<std::size_t>(bin)];
  if (m_count == 0) {
    m_min = m_max = x;
  } else {
    m_min = std::min(m_min, x);
    m_max = std::max(m_max, x);
  }
  ++m_count;
  const double shifted = x - m_lo;
  m_sum += shifted;
  m_sumSq += shifted * shifted;
}

void StreamingDistribution::addMany(std::span<const float> xs) {
  for (const float x : xs) add(x);
}

void StreamingDistribution::addMany(std::span<const double> xs) {
  for (const double x : xs) add(x);
}

void StreamingDistribution::merge(const StreamingDistribution& other) {
  if (other.m_counts.empty()) {
    m_nonFinite += other.m_nonFinite;
    return;
  }
  if (m_counts.empty()) {
    const std::int64_t nonFinite = m_nonFinite;
    *this = other;
    m_nonFinite += nonFinite;
    return;
  }
  if (other.m_lo != m_lo || other.m_hi != m_hi || other.m_counts.size() != m_counts.size()) {
    throw std::invalid_argument("StreamingDistribution::merge: ranges differ ([" +
                                std::to_string(m_lo) + ", " + std::to_string(m_hi) + "] x " +
                                std::to_string(m_counts.size()) + " bins vs [" +
                                std::to_string(other.m_lo) + ", " + std::to_string(other.m_hi) +
                                "] x " + std::to_string(other.m_counts.size()) + ")");
  }
  for (std::size_t b = 0; b < m_counts.size(); ++b) m_counts[b] += other.m_counts[b];
  if (other.m_count > 0) {
    m_min = m_count > 0 ? std::min(m_min, other.m_min) : other.m_min;
    m_max = m_count > 0 ? std::max(m_max, other.m_max) : other.m_max;
  }
  m_count += other.m_count;
  m_clamped += other.m_clamped;
  m_nonFinite += other.m_nonFinite;
  m_sum += other.m_sum;
  m_sumSq += other.m_sumSq;
}

double StreamingDistribution::resolution() const {
  return m_counts.empty() ? 0.0 : (m_hi - m_lo) / static_cast<double>(m_counts.size());
}

double StreamingDistribution::mean() const {
  return m_count == 0 ? 0.0 : m_lo + m_sum / static_cast<double>(m_count);
}

double StreamingDistribution::valueAtRank(std::int64_t rank) const {
  // The sorted values' extremes are known exactly.
  if (rank <= 0) return m_min;
  if (rank >= m_count - 1) return m_max;
  // The c values of a fine bin are taken as evenly spread over it: the j-th (0-based) at
  // (j + 0.5) / c of the bin's width. The estimate stays in the bin that holds the value of
  // this rank, so it is off by less than one bin width (values clamped into the edge bins
  // aside); clamping to [min, max] keeps that.
  const double width = resolution();
  std::int64_t before = 0;
  for (std::size_t b = 0; b < m_counts.size(); ++b) {
    const std::int64_t c = m_counts[b];
    if (rank < before + c) {
      const double within = (static_cast<double>(rank - before) + 0.5) / static_cast<double>(c);
      const double x = m_lo + (static_cast<double>(b) + within) * width;
      return std::clamp(x, m_min, m_max);
    }
    before += c;
  }
  return m_max;
}

double StreamingDistribution::quantile(double q) const {
  if (m_count == 0) return 0.0;
  if (!(q >= 0.0 && q <= 1.0)) {
    throw std::invalid_argument("StreamingDistribution::quantile: q must be in [0, 1], got " +
                                std::to_string(q));
  }
  // numpy's default ("linear", Hyndman & Fan type 7): h = (n - 1) q among the sorted values
  // x_0 <= ... <= x_{n-1}; the result is x_floor(h) + (h - floor(h)) (x_floor(h)+1 - x_floor(h)).
  // Each order statistic comes from the fine histogram (valueAtRank), so the result is
  // within one bin width of numpy's; with n = 1 or 2, and at q = 0 or 1, it is exact.
  const double h = q * static_cast<double>(m_count - 1);
  const double below = std::floor(h);
  const auto rank = static_cast<std::int64_t>(below);
  const double fraction = h - below;
  const double x0 = valueAtRank(rank);
  if (fraction == 0.0) return x0;
  const double x1 = valueAtRank(rank + 1);
  return x0 + fraction * (x1 - x0);
}

std::size_t StreamingDistribution::memoryBytes() const {
  return m_counts.capacity() * sizeof(std::int64_t);
}

namespace {

void requireSummaryOptions(int histogramBins, int kdePoints) {
  if (histogramBins < 1) {
    throw std::invalid_argument(
        "StreamingDistribution::summarise: histogramBins must be >= 1, "
        "got " +
        std::to_string(histogramBins));
  }
  if (kdePoints < 0 || kdePoints == 1) {
    throw std::invalid_argument(
        "StreamingDistribution::summarise: kdePoints must be 0 or >= 2, "
        "got " +
        std::to_string(kdePoints));
  }
}

/// Coarse histogram: each fine bin goes to the coarse bin holding its centre (exact when
/// the fine bins divide evenly, as 4096 does for 8, 16, 32, 64...).
void coarseHistogram(DistributionSummary& s, std::span<const std::int64_t> counts, double lo,
                     double hi, int histogramBins) {
  const auto fine = static_cast<double>(counts.size());
  s.histogramEdges.resize(static_cast<std::size_t>(histogramBins) + 1);
  for (int k = 0; k <= histogramBins; ++k) {
    s.histogramEdges[static_cast<std::size_t>(k)] =
        k == histogramBins ? hi : lo + (hi - lo) * k / histogramBins;
  }
  s.histogramCounts.assign(static_cast<std::size_t>(histogramBins), 0);
  for (std::size_t b = 0; b < counts.size(); ++b) {
    const auto coarse =
        std::min(static_cast<std::size_t>((static_cast<double>(b) + 0.5) * histogramBins / fine),
                 static_cast<std::size_t>(histogramBins) - 1);
    s.histogramCounts[coarse] += counts[b];
  }
}

/// What the density estimate needs of the distribution: its fine bins and moments.
struct KdeInput {
  std::span<const std::int64_t> counts;
  double lo = 0, width = 0;  // first bin's lower edge, bin width
  double min = 0, max = 0;
  double n = 0;               // values counted
  double sum = 0, sumSq = 0;  // of the values shifted by lo
};

/// Silverman's rule of thumb on the streamed moments and quartiles.
double silvermanBandwidth(const KdeInput& in, const DistributionSummary& s) {
  const double meanShifted = in.sum / in.n;
  const double variance =
      in.n > 1 ? std::max(0.0, (in.sumSq - in.n * meanShifted * meanShifted) / (in.n - 1.0)) : 0.0;
  const double sd = std::sqrt(variance);
  const double iqr = s.q3 - s.q1;
  const double spread = iqr > 0.0 ? std::min(sd, iqr / 1.34) : sd;
  return 0.9 * spread * std::pow(in.n, -0.2);
}

/// (Nearly) one repeated value: a Gaussian around it, wide enough to draw.
void singleValueKde(DistributionSummary& s, const KdeInput& in, double h, int kdePoints) {
  const double invSqrt2Pi = 1.0 / std::sqrt(2.0 * std::numbers::pi);
  h = std::max(h, in.width);
  const double centre = 0.5 * (in.min + in.max);
  for (std::size_t k = 0; k < static_cast<std::size_t>(kdePoints); ++k) {
    const double x = centre - 4.0 * h + 8.0 * h * static_cast<double>(k) / (kdePoints - 1);
    const double z = (x - centre) / h;
    s.kdeX[k] = x;
    s.kdeDensity[k] = invSqrt2Pi * std::exp(-0.5 * z * z) / h;
  }
  s.kdeBandwidth = h;
}

struct Mass {
  double at, weight;
};

/// Fine bins grouped to at most h/4 wide, each group a point mass at the mean of its bins'
/// centres (clipped to [min, max], where the values are).
std::vector<Mass> binnedMasses(const KdeInput& in, double h) {
  std::vector<Mass> masses;
  const auto group = static_cast<std::size_t>(std::max(1.0, std::floor(0.25 * h / in.width)));
  for (std::size_t g0 = 0; g0 < in.counts.size(); g0 += group) {
    double weight = 0.0, moment = 0.0;
    for (std::size_t b = g0; b < std::min(g0 + group, in.counts.size()); ++b) {
      if (in.counts[b] == 0) continue;
      const double binLo = std::max(in.lo + static_cast<double>(b) * in.width, in.min);
      const double binHi = std::min(in.lo + static_cast<double>(b + 1) * in.width, in.max);
      const double c = static_cast<double>(in.counts[b]);
      weight += c;
      moment += c * std::clamp(0.5 * (binLo + binHi), in.min, in.max);
    }
    if (weight > 0.0) masses.push_back({moment / weight, weight / in.n});
  }
  return masses;
}

/// Binned KDE over [min, max], reflected at both ends.
void binnedKde(DistributionSummary& s, const KdeInput& in, double h, int kdePoints) {
  const double invSqrt2Pi = 1.0 / std::sqrt(2.0 * std::numbers::pi);
  const auto points = static_cast<std::size_t>(kdePoints);
  const double step = (in.max - in.min) / (kdePoints - 1);
  h = std::max({h, in.width, 0.5 * step});
  s.kdeBandwidth = h;
  const std::vector<Mass> masses = binnedMasses(in, h);
  const double cutoff = 8.0;  // kernel mass beyond 8 sd is < 1e-15
  for (std::size_t k = 0; k < points; ++k) {
    const double x = k + 1 == points ? in.max : in.min + step * static_cast<double>(k);
    double density = 0.0;
    for (const Mass& m : masses) {
      // The kernel, and its mirror images about min and max (boundary reflection).
      for (const double centre : {m.at, 2.0 * in.min - m.at, 2.0 * in.max - m.at}) {
        const double z = (x - centre) / h;
        if (std::abs(z) < cutoff) density += m.weight * std::exp(-0.5 * z * z);
      }
    }
    s.kdeX[k] = x;
    s.kdeDensity[k] = density * invSqrt2Pi / h;
  }
}

}  // namespace

DistributionSummary StreamingDistribution::summarise(int histogramBins, int kdePoints) const {
  requireSummaryOptions(histogramBins, kdePoints);
  DistributionSummary s;
  s.count = m_count;
  s.clamped = m_clamped;
  s.resolution = resolution();
  if (m_counts.empty()) return s;
  coarseHistogram(s, m_counts, m_lo, m_hi, histogramBins);
  if (m_count == 0) {
    // Nothing to summarise: NaN (JSON null) rather than zeros that read as a real, peaked head.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.mean = s.min = s.max = s.q1 = s.median = s.q3 = nan;
    return s;
  }

  s.mean = mean();
  s.min = m_min;
  s.max = m_max;
  s.q1 = quantile(0.25);
  s.median = quantile(0.5);
  s.q3 = quantile(0.75);
  if (kdePoints == 0) return s;

  const KdeInput in{m_counts, m_lo,   s.resolution, m_min, m_max, static_cast<double>(m_count),
                    m_sum,    m_sumSq};
  const double h = silvermanBandwidth(in, s);
  s.kdeX.resize(static_cast<std::size_t>(kdePoints));
  s.kdeDensity.assign(static_cast<std::size_t>(kdePoints), 0.0);
  if (m_max - m_min < s.resolution) {
    singleValueKde(s, in, h, kdePoints);
  } else {
    binnedKde(s, in, h, kdePoints);
  }
  return s;
}

}  // namespace attnlab::analysis
