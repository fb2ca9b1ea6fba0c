#include "widgets/plots/density.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace attnlab::widgets {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> finiteSorted(const std::vector<double>& samples) {
  std::vector<double> v;
  v.reserve(samples.size());
  for (double s : samples)
    if (std::isfinite(s)) v.push_back(s);
  std::sort(v.begin(), v.end());
  return v;
}

double standardDeviation(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  double mean = 0.0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0.0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

double silvermanSorted(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  if (n == 0) return 1.0;
  const double sd = standardDeviation(sorted);
  const double iqr = quantileSorted(sorted, 0.75) - quantileSorted(sorted, 0.25);
  double spread = iqr > 0.0 ? std::min(sd, iqr / 1.34) : sd;
  if (!(spread > 0.0)) {
    // All values equal (or one sample): a narrow kernel relative to the value's magnitude.
    spread = 1e-3 * std::max(1.0, std::abs(sorted.front()));
  }
  return 0.9 * spread * std::pow(static_cast<double>(n), -0.2);
}

struct Grid {
  double lo, hi;
  int points;
  double step() const { return points > 1 ? (hi - lo) / (points - 1) : 0.0; }
};

Grid makeGrid(const std::vector<double>& sorted, double h, const DensityOptions& o) {
  double lo = sorted.front() - o.cut * h;
  double hi = sorted.back() + o.cut * h;
  lo = std::max(lo, o.lowerBound);
  hi = std::min(hi, o.upperBound);
  if (!(hi > lo)) {  // clipping collapsed the support: keep a sliver around the data
    lo = sorted.front() - h;
    hi = sorted.back() + h;
  }
  return {lo, hi, std::max(2, o.points)};
}

double gaussian(double u) {
  return std::exp(-0.5 * u * u) / std::sqrt(2.0 * std::numbers::pi);
}

Density exactOnGrid(const std::vector<double>& sorted, double h, const Grid& g) {
  Density d;
  d.bandwidth = h;
  d.x.resize(g.points);
  d.y.assign(g.points, 0.0);
  const double norm = 1.0 / (static_cast<double>(sorted.size()) * h);
  for (int i = 0; i < g.points; ++i) {
    const double x = g.lo + i * g.step();
    d.x[i] = x;
    // Samples beyond 8 h contribute below 1e-14 of the peak; the sorted order bounds the loop.
    const auto first = std::lower_bound(sorted.begin(), sorted.end(), x - 8 * h);
    const auto last = std::upper_bound(sorted.begin(), sorted.end(), x + 8 * h);
    double sum = 0.0;
    for (auto it = first; it != last; ++it) sum += gaussian((x - *it) / h);
    d.y[i] = sum * norm;
  }
  return d;
}

}  // namespace

double quantileSorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return kNaN;
  p = std::clamp(p, 0.0, 1.0);
  const double pos = p * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(pos));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(below);
  return sorted[below] + frac * (sorted[above] - sorted[below]);
}

Quartiles quartiles(std::vector<double> samples) {
  const std::vector<double> v = finiteSorted(samples);
  if (v.empty()) return {kNaN, kNaN, kNaN};
  return {quantileSorted(v, 0.25), quantileSorted(v, 0.5), quantileSorted(v, 0.75)};
}

double silvermanBandwidth(const std::vector<double>& samples) {
  return silvermanSorted(finiteSorted(samples));
}

Density gaussianKde(const std::vector<double>& samples, const DensityOptions& options) {
  const std::vector<double> v = finiteSorted(samples);
  if (v.empty()) return {};
  const double h = options.bandwidth > 0 ? options.bandwidth : silvermanSorted(v);
  return exactOnGrid(v, h, makeGrid(v, h, options));
}

Density binnedGaussianKde(const std::vector<double>& samples, const DensityOptions& options) {
  const std::vector<double> v = finiteSorted(samples);
  if (v.empty()) return {};
  const double h = options.bandwidth > 0 ? options.bandwidth : silvermanSorted(v);
  const Grid out = makeGrid(v, h, options);
  // Bin on a fine grid that covers the data and the kernel's reach, at h/16 spacing (at most
  // 8192 bins): linear binning then has an error of order (delta/h)^2 ~ 4e-3 relative.
  const double lo = std::min(out.lo, v.front()) - 4 * h;
  const double hi = std::max(out.hi, v.back()) + 4 * h;
  const int bins = std::clamp(static_cast<int>((hi - lo) / (h / 16.0)) + 1, 64, 8192);
  const double delta = (hi - lo) / (bins - 1);
  std::vector<double> weight(bins, 0.0);
  for (double s : v) {
    const double pos = (s - lo) / delta;
    const int i = std::clamp(static_cast<int>(pos), 0, bins - 2);
    const double frac = pos - i;
    weight[i] += 1.0 - frac;
    weight[i + 1] += frac;
  }
  const int reach = static_cast<int>(std::ceil(4 * h / delta));
  std::vector<double> kernel(2 * reach + 1);
  for (int k = -reach; k <= reach; ++k) kernel[k + reach] = gaussian(k * delta / h);
  const double norm = 1.0 / (static_cast<double>(v.size()) * h);
  auto densityAtBin = [&](int b) {
    double sum = 0.0;
    const int from = std::max(0, b - reach), to = std::min(bins - 1, b + reach);
    for (int j = from; j <= to; ++j) sum += weight[j] * kernel[b - j + reach];
    return sum * norm;
  };
  Density d;
  d.bandwidth = h;
  d.x.resize(out.points);
  d.y.resize(out.points);
  for (int i = 0; i < out.points; ++i) {
    const double x = out.lo + i * out.step();
    const double pos = (x - lo) / delta;
    const int b = std::clamp(static_cast<int>(pos), 0, bins - 2);
    const double frac = pos - b;
    d.x[i] = x;
    d.y[i] = (1.0 - frac) * densityAtBin(b) + frac * densityAtBin(b + 1);
  }
  return d;
}

ViolinStats violinStats(const std::vector<double>& samples, const DensityOptions& options) {
  ViolinStats s;
  const std::vector<double> v = finiteSorted(samples);
  s.count = v.size();
  if (v.empty()) {
    s.quartiles = {kNaN, kNaN, kNaN};
    s.min = s.max = kNaN;
    return s;
  }
  s.min = v.front();
  s.max = v.back();
  s.quartiles = {quantileSorted(v, 0.25), quantileSorted(v, 0.5), quantileSorted(v, 0.75)};
  // The exact sum costs n * points kernel evaluations; beyond ~20k of them binning wins.
  const bool exact = v.size() * static_cast<std::size_t>(std::max(2, options.points)) <= 20000;
  s.density = exact ? gaussianKde(v, options) : binnedGaussianKde(v, options);
  return s;
}

}  // namespace attnlab::widgets
