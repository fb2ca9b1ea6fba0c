#pragma once

// Realistic generated data for widget tests, the gallery and the benchmark: attention with
// the structures heads really show (self/diagonal, previous token, first token, broad),
// entropy-like violin samples and their summaries as the analysis emits them, a noisy loss
// curve. Deterministic (fixed seeds).

#include <QStringList>

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "analysis/attention/streaming_distribution.h"
#include "widgets/plots/plot_data.h"
#include "widgets/plots/violin_grid.h"

namespace attnlab::widgets::sample {

enum class HeadKind { Diagonal, PreviousToken, FirstToken, Broad };

/// A row-stochastic T x T attention matrix of the given kind, with noise.
inline Matrix attention(int tokens, HeadKind kind, unsigned seed = 1, int validTokens = -1) {
  if (validTokens < 0) validTokens = tokens;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> noise(0.0f, 1.0f);
  Matrix m(tokens, tokens, 0.0f);
  for (int q = 0; q < tokens; ++q) {
    double sum = 0.0;
    for (int k = 0; k < tokens; ++k) {
      if (k >= validTokens) continue;  // padding keys get no attention
      float logit = 0.6f * noise(rng);
      switch (kind) {
        case HeadKind::Diagonal:
          logit += 4.0f * std::exp(-0.5f * float((q - k) * (q - k)));
          break;
        case HeadKind::PreviousToken:
          logit += (k == q - 1 || (q == 0 && k == 0)) ? 5.0f : 0.0f;
          break;
        case HeadKind::FirstToken:
          logit += (k == 0 ? 4.5f : 0.0f) + (k == tokens - 1 ? 1.5f : 0.0f);
          break;
        case HeadKind::Broad:
          logit += 0.8f * std::sin(0.3f * k) + 0.5f * std::cos(0.17f * q);
          break;
      }
      m.at(q, k) = std::exp(logit);
      sum += m.at(q, k);
    }
    for (int k = 0; k < tokens; ++k) m.at(q, k) = float(m.at(q, k) / sum);
  }
  return m;
}

/// A mixture of the four kinds, as a real head often is.
inline Matrix mixedAttention(int tokens, unsigned seed = 7) {
  const Matrix a = attention(tokens, HeadKind::Diagonal, seed);
  const Matrix b = attention(tokens, HeadKind::PreviousToken, seed + 1);
  const Matrix c = attention(tokens, HeadKind::FirstToken, seed + 2);
  Matrix m(tokens, tokens, 0.0f);
  for (std::size_t i = 0; i < m.values.size(); ++i)
    m.values[i] = 0.35f * a.values[i] + 0.4f * b.values[i] + 0.25f * c.values[i];
  return m;
}

/// The previous-token guidance target (1 on the sub-diagonal, row 0 on itself).
inline Matrix previousTokenPattern(int tokens) {
  Matrix m(tokens, tokens, 0.0f);
  for (int q = 0; q < tokens; ++q) m.at(q, std::max(0, q - 1)) = 1.0f;
  return m;
}

inline QStringList sentence(int tokens) {
  static const QStringList words = {"<s>",    "the",   "▁quick", "▁brown", "▁fox", "▁jump", "s",
                                    "▁over",  "▁the",  "▁lazy",  "▁dog",   ",",    "▁and",  "▁it",
                                    "▁never", "▁look", "ed",     "▁back",  ".",    "▁then", "▁a",
                                    "▁small", "▁bird", "▁sang",  "▁from",  "▁the", "▁tree"};
  QStringList out;
  for (int i = 0; i < tokens; ++i) {
    if (i == tokens - 1)
      out << "</s>";
    else
      out << words.at(i % words.size());
  }
  return out;
}

/// Entropy-like samples (nats) for layers x heads: low layers broad (high entropy, up to
/// ln 128 = 4.85), upper layers sharper; some heads bimodal.
inline std::vector<std::vector<double>> entropySamples(int layers, int heads, int n,
                                                       unsigned seed = 3) {
  std::mt19937 rng(seed);
  std::vector<std::vector<double>> out(static_cast<std::size_t>(layers) * heads);
  for (int l = 0; l < layers; ++l) {
    for (int h = 0; h < heads; ++h) {
      std::uniform_real_distribution<double> u(0.0, 1.0);
      const double centre = std::clamp(
          4.6 - 3.6 * l / std::max(1, layers - 1) + 1.4 * (u(rng) - 0.5) + 0.5 * std::sin(h * 1.3),
          0.3, 4.8);
      const double spread = 0.15 + 0.5 * u(rng);
      const bool bimodal = (l + h) % 5 == 0;
      std::normal_distribution<double> main(centre, spread), second(centre * 0.4, 0.2);
      auto& v = out[static_cast<std::size_t>(l) * heads + h];
      v.reserve(n);
      for (int i = 0; i < n; ++i) {
        const double x = (bimodal && i % 3 == 0) ? second(rng) : main(rng);
        v.push_back(std::clamp(x, 0.0, std::log(128.0)));
      }
    }
  }
  return out;
}

/// JSD-like samples (bits, 0..1) for adjacent layer pairs.
inline std::vector<std::vector<double>> jsdSamples(int pairs, int heads, int n, unsigned seed = 5) {
  std::mt19937 rng(seed);
  std::vector<std::vector<double>> out(static_cast<std::size_t>(pairs) * heads);
  for (int l = 0; l < pairs; ++l)
    for (int h = 0; h < heads; ++h) {
      std::uniform_real_distribution<double> u(0.0, 1.0);
      const double centre = std::clamp(0.15 + 0.7 * u(rng), 0.05, 0.95);
      std::normal_distribution<double> d(centre, 0.05 + 0.08 * u(rng));
      auto& v = out[static_cast<std::size_t>(l) * heads + h];
      for (int i = 0; i < n; ++i) v.push_back(std::clamp(d(rng), 0.0, 1.0));
    }
  return out;
}

/// What the analysis emits for such values: the widget's summariseSamples() (each list
/// through an analysis::StreamingDistribution) over [lo, hi]. Use the analysis' own ranges
/// (entropy [0, ln T] for sequences of T tokens, JSD [0, 1] bits).
inline std::vector<analysis::DistributionSummary> summaries(
    const std::vector<std::vector<double>>& samples, double lo, double hi) {
  widgets::ViolinScale range = widgets::ViolinScale::entropyNats();
  range.lowerBound = lo;
  range.upperBound = hi;
  return widgets::summariseSamples(samples, range);
}

/// A noisy MLM loss curve: exponential decay from ln(8000) = 9.0 to ~2.5, noise, a few
/// spikes. steps 1..n; wall seconds at ~0.85 s per step with jitter.
struct Curve {
  std::vector<double> steps, values, wallSeconds;
};
inline Curve lossCurve(int n, unsigned seed = 11, double floor = 2.5, double rate = 4e-4) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Curve c;
  c.steps.reserve(n);
  c.values.reserve(n);
  c.wallSeconds.reserve(n);
  double wall = 1.7e9;
  for (int i = 1; i <= n; ++i) {
    const double mean = floor + (9.0 - floor) * std::exp(-rate * i);
    double v = mean + 0.12 * (0.3 + mean / 9.0) * noise(rng);
    if (u(rng) < 2e-4) v += 2.0 + 2.0 * u(rng);  // rare loss spikes
    c.steps.push_back(i);
    c.values.push_back(v);
    wall += 0.85 + 0.05 * noise(rng);
    c.wallSeconds.push_back(wall);
  }
  return c;
}

/// ASA-like masking proportion per layer (rows) over `steps` logged steps: starts near
/// 0.15 everywhere and settles higher in bottom layers than in top ones (their Figure 5).
inline Matrix maskingProportion(int layers, int steps, std::vector<double>* stepAxis,
                                unsigned seed = 13) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.006);
  Matrix m(layers, steps, 0.0f);
  stepAxis->clear();
  for (int i = 0; i < steps; ++i) stepAxis->push_back(100.0 * (i + 1));
  for (int l = 0; l < layers; ++l)
    for (int i = 0; i < steps; ++i) {
      const double target = 0.22 - 0.12 * l / std::max(1, layers - 1);
      const double v = target + (0.15 - target) * std::exp(-i / (0.2 * steps)) + noise(rng);
      m.at(l, i) = float(std::clamp(v, 0.0, 1.0));
    }
  return m;
}

/// Probe accuracy per (layer, head): middle layers best, one standout head.
inline Matrix probeAccuracy(int layers, int heads, unsigned seed = 17) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Matrix m(layers, heads, 0.0f);
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) {
      const double mid = std::exp(-std::pow((l - 0.6 * layers) / (0.3 * layers), 2));
      m.at(l, h) = float(0.15 + 0.35 * mid * u(rng) + 0.05 * u(rng));
    }
  m.at(int(0.6 * layers), heads / 3) = 0.72f;
  return m;
}

}  // namespace attnlab::widgets::sample
