#include "analysis/attention/distribution_stats.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::analysis {
namespace {

double toBase(double nats, LogBase base) {
  return base == LogBase::Bits ? nats / std::numbers::ln2 : nats;
}

}  // namespace

double entropy(std::span<const float> p, LogBase base) {
  double h = 0.0;
  for (const float v : p) {
    if (v > 0.0f) h -= static_cast<double>(v) * std::log(static_cast<double>(v));
  }
  return toBase(h, base);
}

double jensenShannon(std::span<const float> p, std::span<const float> q, LogBase base) {
  if (p.size() != q.size()) {
    throw std::invalid_argument("jensenShannon: distributions differ in length (" +
                                std::to_string(p.size()) + " vs " + std::to_string(q.size()) + ")");
  }
  double js = 0.0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double a = p[i];
    const double b = q[i];
    const double m = 0.5 * (a + b);
    if (a > 0.0) js += 0.5 * a * std::log(a / m);
    if (b > 0.0) js += 0.5 * b * std::log(b / m);
  }
  return toBase(std::max(0.0, js), base);
}

double jensenShannonSmoothed(std::span<const float> p, std::span<const float> q, LogBase base) {
  if (p.size() != q.size()) {
    throw std::invalid_argument("jensenShannonSmoothed: distributions differ in length (" +
                                std::to_string(p.size()) + " vs " + std::to_string(q.size()) + ")");
  }
  if (p.empty()) throw std::invalid_argument("jensenShannonSmoothed: empty distributions");
  // In double throughout: this is the reference the streaming statistics are checked against.
  const double n = static_cast<double>(p.size());
  const double floor = kClarkSmoothing / n;
  const double keep = 1.0 - kClarkSmoothing;
  double js = 0.0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double a = floor + keep * p[i];
    const double b = floor + keep * q[i];
    const double m = 0.5 * (a + b);
    js += 0.5 * a * std::log(a / m) + 0.5 * b * std::log(b / m);
  }
  return toBase(std::max(0.0, js), base);
}

}  // namespace attnlab::analysis
