#include "widgets/plots/curve_decimation.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab::widgets {

double DebiasedEma::push(double x) {
  if (!std::isfinite(x)) return x;
  m_last = m_last * m_weight + (1.0 - m_weight) * x;
  m_debias = m_debias * m_weight + (1.0 - m_weight);
  return m_debias > 0.0 ? m_last / m_debias : x;
}

void DebiasedEma::reset() {
  m_last = 0.0;
  m_debias = 0.0;
}

std::vector<double> debiasedEma(const std::vector<double>& values, double weight) {
  if (weight <= 0.0) return values;
  DebiasedEma ema(weight);
  std::vector<double> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = ema.push(values[i]);
  return out;
}

namespace {

// The index range [first, last) of points with xLo <= x <= xHi.
std::pair<std::size_t, std::size_t> visibleRange(const double* x, std::size_t n, double xLo,
                                                 double xHi) {
  const std::size_t first = std::lower_bound(x, x + n, xLo) - x;
  const std::size_t last = std::upper_bound(x, x + n, xHi) - x;
  return {first, std::max(first, last)};
}

int columnOf(double x, double xLo, double scale, int columns) {
  return std::clamp(static_cast<int>((x - xLo) * scale), 0, columns - 1);
}

}  // namespace

Envelope minMaxEnvelope(const double* x, const double* y, std::size_t n, double xLo, double xHi,
                        int columns) {
  Envelope e;
  if (n == 0 || columns <= 0 || !(xHi > xLo)) return e;
  const auto [first, last] = visibleRange(x, n, xLo, xHi);
  const double scale = columns / (xHi - xLo);
  const double width = (xHi - xLo) / columns;
  int current = -1;
  double lo = 0, hi = 0;
  auto flush = [&] {
    if (current < 0) return;
    e.x.push_back(xLo + (current + 0.5) * width);
    e.lower.push_back(lo);
    e.upper.push_back(hi);
  };
  for (std::size_t i = first; i < last; ++i) {
    const double v = y[i];
    if (std::isnan(v)) continue;
    const int c = columnOf(x[i], xLo, scale, columns);
    if (c != current) {
      flush();
      current = c;
      lo = hi = v;
    } else {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  flush();
  return e;
}

Polyline decimateMinMax(const double* x, const double* y, std::size_t n, double xLo, double xHi,
                        int columns) {
  Polyline p;
  if (n == 0 || columns <= 0 || !(xHi > xLo)) return p;
  auto [first, last] = visibleRange(x, n, xLo, xHi);
  auto keep = [&](std::size_t i) {
    if (!p.x.empty() && p.x.back() == x[i] && p.y.back() == y[i]) return;
    p.x.push_back(x[i]);
    p.y.push_back(y[i]);
  };
  if (first > 0) keep(first - 1);
  const double scale = columns / (xHi - xLo);
  std::size_t i = first;
  while (i < last) {
    const int c = columnOf(x[i], xLo, scale, columns);
    // Gather the run of points in column c; NaN points are emitted as they are (gaps).
    std::size_t firstIdx = i, minIdx = n, maxIdx = n, lastIdx = i;
    for (; i < last && columnOf(x[i], xLo, scale, columns) == c; ++i) {
      if (std::isnan(y[i])) {
        // Close the run before the gap so the gap lands where it happened.
        if (minIdx != n) {
          for (std::size_t k :
               {firstIdx, std::min(minIdx, maxIdx), std::max(minIdx, maxIdx), lastIdx})
            keep(k);
        }
        p.x.push_back(x[i]);
        p.y.push_back(y[i]);
        minIdx = maxIdx = n;
        firstIdx = lastIdx = i + 1;
        continue;
      }
      if (minIdx == n) firstIdx = i;
      if (minIdx == n || y[i] < y[minIdx]) minIdx = i;
      if (maxIdx == n || y[i] > y[maxIdx]) maxIdx = i;
      lastIdx = i;
    }
    if (minIdx != n) {
      for (std::size_t k : {firstIdx, std::min(minIdx, maxIdx), std::max(minIdx, maxIdx), lastIdx})
        keep(k);
    }
  }
  if (last < n) keep(last);
  return p;
}

}  // namespace attnlab::widgets
