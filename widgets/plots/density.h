#pragma once

// Violin statistics: quantiles and Gaussian kernel density estimates. Plain C++ (no Qt) so
// the numbers can be unit-tested against hand computations.

#include <cstddef>
#include <vector>

namespace attnlab::widgets {

/// The p-quantile (0 <= p <= 1) of already sorted finite values, by linear interpolation
/// between order statistics (Hyndman-Fan type 7: numpy's and R's default). NaN if empty.
double quantileSorted(const std::vector<double>& sorted, double p);

/// First quartile, median and third quartile (type 7).
struct Quartiles {
  double q1 = 0.0;
  double median = 0.0;
  double q3 = 0.0;
};

/// Quartiles of the finite values in `samples` (NaN and infinities are skipped); all NaN
/// when none is finite.
Quartiles quartiles(std::vector<double> samples);

/// Silverman's rule-of-thumb bandwidth (1986, eq. 3.31):
/// h = 0.9 * min(sd, IQR / 1.34) * n^(-1/5), with the sample standard deviation (n - 1).
/// Falls back to sd when the IQR is zero, and to a small positive width when every value
/// is equal, so a degenerate head still draws as a thin violin instead of failing.
double silvermanBandwidth(const std::vector<double>& samples);

/// A density evaluated on an even grid.
struct Density {
  std::vector<double> x;  ///< grid points, increasing
  std::vector<double> y;  ///< density at each grid point (integrates to ~1 over the support)
  double bandwidth = 0.0;
};

/// Where a density is evaluated: from min - cut*h to max + cut*h, clipped to
/// [lowerBound, upperBound] (entropy is never negative, JSD in bits never exceeds 1).
struct DensityOptions {
  int points = 64;         ///< grid size (>= 2)
  double bandwidth = 0.0;  ///< 0 = Silverman
  double cut = 2.0;        ///< bandwidths beyond the extreme samples (seaborn's default)
  double lowerBound = -1e300;
  double upperBound = 1e300;
};

/// Exact Gaussian KDE: y(x) = 1/(n h) * sum_i phi((x - x_i) / h). O(n * points).
Density gaussianKde(const std::vector<double>& samples, const DensityOptions& options = {});

/// The same estimate through linear binning onto a fine grid and a truncated (4 h) discrete
/// convolution: O(n + grid * kernel) and within about 1e-3 of the exact one for the sample
/// sizes violins see (thousands of attention rows per head).
Density binnedGaussianKde(const std::vector<double>& samples, const DensityOptions& options = {});

/// Everything one violin needs.
struct ViolinStats {
  Density density;
  Quartiles quartiles;
  double min = 0.0;
  double max = 0.0;
  std::size_t count = 0;  ///< finite samples used
};

/// Density (exact for small samples, binned for large ones) and quartiles of `samples`.
ViolinStats violinStats(const std::vector<double>& samples, const DensityOptions& options = {});

}  // namespace attnlab::widgets
