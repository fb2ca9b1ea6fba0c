#pragma once

// Curve preparation: debiased exponential smoothing on full-resolution data, then per
// pixel column thinning that keeps every extreme. Plain C++ (no Qt), unit-tested.

#include <cstddef>
#include <vector>

namespace attnlab::widgets {

/// TensorBoard's debiased exponential moving average. With weight beta:
/// s_t = beta * s_{t-1} + (1 - beta) * x_t (s_0 = 0), reported as s_t / (1 - beta^t), so the
/// first points are not pulled towards zero. Non-finite inputs pass through unchanged and
/// do not enter the average (a NaN loss is shown where it happened, not smeared).
class DebiasedEma {
 public:
  explicit DebiasedEma(double weight = 0.6) : m_weight(weight) {}
  /// Feeds one value and returns the smoothed value for it.
  double push(double x);
  void reset();
  double weight() const { return m_weight; }

 private:
  double m_weight;
  double m_last = 0.0;
  double m_debias = 0.0;  // 1 - beta^t, accumulated as TensorBoard does
};

/// The smoothed series for `values` (same length). weight 0 returns the input.
std::vector<double> debiasedEma(const std::vector<double>& values, double weight);

/// Per pixel column, the lowest and highest value among the points whose x falls in it.
struct Envelope {
  std::vector<double> x;      ///< column centre, only for columns that hold points
  std::vector<double> lower;  ///< minimum in the column
  std::vector<double> upper;  ///< maximum in the column
};

/// Splits [xLo, xHi] into `columns` equal columns and reports min/max of y per non-empty
/// column; NaN y values are skipped. `x` must be non-decreasing. O(points in range).
Envelope minMaxEnvelope(const double* x, const double* y, std::size_t n, double xLo, double xHi,
                        int columns);

/// A thinned polyline.
struct Polyline {
  std::vector<double> x;
  std::vector<double> y;
};

/// M4 thinning: per column the first, minimum, maximum and last point, in their original
/// order, so the drawn line touches every extreme the full data reaches in that column and
/// no spike disappears. One point on each side outside [xLo, xHi] is kept so the line runs
/// to the edges. `x` must be non-decreasing; NaN y values become gaps (a NaN point is kept).
Polyline decimateMinMax(const double* x, const double* y, std::size_t n, double xLo, double xHi,
                        int columns);

}  // namespace attnlab::widgets
