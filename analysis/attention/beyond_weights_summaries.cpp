#include "analysis/attention/beyond_weights_summaries.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <utility>

namespace attnlab::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

std::uint64_t splitmix64(std::uint64_t x) {
  x += kGolden;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

double meanOf(double sum, std::int64_t n) {
  return n > 0 ? sum / static_cast<double>(n) : kNaN;
}

}  // namespace

void PearsonAccumulator::add(double x, double y) {
  ++m_n;
  const double n = static_cast<double>(m_n);
  const double dx = x - m_meanX;
  m_meanX += dx / n;
  const double dy = y - m_meanY;
  m_meanY += dy / n;
  m_xx += dx * (x - m_meanX);
  m_yy += dy * (y - m_meanY);
  m_xy += dx * (y - m_meanY);
}

double PearsonAccumulator::correlation() const {
  if (m_n < 2 || !(m_xx > 0) || !(m_yy > 0)) return kNaN;
  return m_xy / std::sqrt(m_xx * m_yy);
}

RolloutAccumulator::RolloutAccumulator(int layers)
    : m_layers(layers), m_diagonal(layers), m_spread(layers), m_entropy(layers) {
  if (layers < 1) throw std::invalid_argument("RolloutAccumulator: layers must be >= 1");
}

void RolloutAccumulator::addSequence(const AttentionStack& attention, int valid) {
  if (attention.layers != m_layers) {
    throw std::invalid_argument("RolloutAccumulator: the stack's layers differ from the summary's");
  }
  if (valid <= 0) return;
  const auto rollout = attentionRollout(attention, valid);
  const auto n = static_cast<std::size_t>(valid);
  for (int l = 0; l < m_layers; ++l) {
    const double* R = rollout.data() + static_cast<std::size_t>(l) * n * n;
    double diagonal = 0, spread = 0, entropy = 0;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < n; ++j) {
        const double r = R[i * n + j];
        spread += r * std::abs(static_cast<double>(i) - static_cast<double>(j));
        if (r > 0) entropy -= r * std::log(r);
      }
      diagonal += R[i * n + i];
    }
    m_diagonal[l] += diagonal;
    m_spread[l] += spread;
    m_entropy[l] += entropy;
  }
  m_rows += valid;
}

RolloutSummary RolloutAccumulator::result() const {
  RolloutSummary s;
  s.layers = m_layers;
  s.rows = m_rows;
  for (int l = 0; l < m_layers; ++l) {
    s.diagonal.push_back(meanOf(m_diagonal[l], m_rows));
    s.spread.push_back(meanOf(m_spread[l], m_rows));
    s.entropy.push_back(meanOf(m_entropy[l], m_rows));
  }
  return s;
}

NormAccumulator::NormAccumulator(int layers, int heads)
    : m_layers(layers),
      m_heads(heads),
      m_head(static_cast<std::size_t>(layers * heads)),
      m_layer(static_cast<std::size_t>(layers)),
      m_valueNormSum(static_cast<std::size_t>(layers * heads)),
      m_valueNormCount(static_cast<std::size_t>(layers * heads)) {
  if (layers < 1 || heads < 1) {
    throw std::invalid_argument("NormAccumulator: layers and heads must be >= 1");
  }
}

void NormAccumulator::addLayer(int layer, const NormLayerView& v) {
  if (layer < 0 || layer >= m_layers) throw std::invalid_argument("NormAccumulator: bad layer");
  const auto T = static_cast<std::size_t>(v.T);
  const auto n = static_cast<std::size_t>(v.valid);
  for (int h = 0; h < m_heads; ++h) {
    const auto k = static_cast<std::size_t>(layer * m_heads + h);
    const float* w = v.weights + static_cast<std::size_t>(h) * T * T;
    const float* norms = v.headNorms + static_cast<std::size_t>(h) * T * T;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) m_head[k].add(w[i * T + j], norms[i * T + j]);
    const float* f = v.valueNorms + static_cast<std::size_t>(h) * T;
    for (std::size_t j = 0; j < n; ++j) m_valueNormSum[k] += f[j];
    m_valueNormCount[k] += static_cast<std::int64_t>(n);
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      double mean = 0;
      for (int h = 0; h < m_heads; ++h) mean += v.weights[(h * T + i) * T + j];
      m_layer[static_cast<std::size_t>(layer)].add(mean / m_heads, v.layerNorms[i * T + j]);
    }
  }
}

NormSummary NormAccumulator::result() const {
  NormSummary s;
  s.layers = m_layers;
  s.heads = m_heads;
  s.cells = m_head.front().count();
  for (std::size_t k = 0; k < m_head.size(); ++k) {
    s.headCorrelation.push_back(m_head[k].correlation());
    s.meanValueNorm.push_back(meanOf(m_valueNormSum[k], m_valueNormCount[k]));
  }
  for (const auto& p : m_layer) s.layerCorrelation.push_back(p.correlation());
  return s;
}

LensAccumulator::LensAccumulator(int layers, bool outputRow, std::uint64_t seed)
    : m_rowCount(layers + (outputRow ? 1 : 0)),
      m_correct(static_cast<std::size_t>(m_rowCount)),
      m_rank(static_cast<std::size_t>(m_rowCount)),
      m_entropy(static_cast<std::size_t>(m_rowCount)),
      m_kl(static_cast<std::size_t>(m_rowCount)) {
  if (layers < 1) throw std::invalid_argument("LensAccumulator: layers must be >= 1");
  m_base.layers = layers;
  m_base.outputRow = outputRow;
  m_base.seed = seed;
}

void LensAccumulator::add(std::span<const std::int64_t> rank, std::span<const double> entropy,
                          std::span<const double> kl, std::int64_t positions) {
  const auto N = static_cast<std::size_t>(positions);
  const auto size = static_cast<std::size_t>(m_rowCount) * N;
  if (rank.size() != size || entropy.size() != size || kl.size() != size) {
    throw std::invalid_argument("LensAccumulator: expected [rows, positions] arrays");
  }
  for (std::size_t r = 0; r < static_cast<std::size_t>(m_rowCount); ++r) {
    for (std::size_t p = 0; p < N; ++p) {
      const auto k = r * N + p;
      if (rank[k] == 0) ++m_correct[r];
      m_rank[r] += static_cast<double>(rank[k]);
      m_entropy[r] += entropy[k];
      m_kl[r] += kl[k];
    }
  }
  m_base.positions += positions;
}

LensSummary LensAccumulator::result() const {
  LensSummary s = m_base;
  for (std::size_t r = 0; r < static_cast<std::size_t>(m_rowCount); ++r) {
    LensSummaryRow row;
    row.accuracy = meanOf(static_cast<double>(m_correct[r]), s.positions);
    row.meanRank = meanOf(m_rank[r], s.positions);
    row.meanEntropy = meanOf(m_entropy[r], s.positions);
    row.meanKlToOutput = meanOf(m_kl[r], s.positions);
    s.rows.push_back(row);
  }
  s.halfAccuracyRow = halfAccuracyRow(s.rows);
  return s;
}

int halfAccuracyRow(const std::vector<LensSummaryRow>& rows) {
  if (rows.empty() || !(rows.back().accuracy > 0)) return -1;
  const double half = 0.5 * rows.back().accuracy;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].accuracy >= half) return static_cast<int>(r);
  }
  return -1;  // unreachable: the last row reaches half of itself
}

std::uint64_t lensMaskKey(std::uint64_t seed, std::int64_t sequence, int position) {
  const auto inner = splitmix64(seed + kGolden * static_cast<std::uint64_t>(sequence + 1));
  return splitmix64(inner + static_cast<std::uint64_t>(position));
}

std::vector<int> lensMaskPositions(const std::int64_t* ids, int length,
                                   std::span<const std::int64_t> specialIds, std::uint64_t seed,
                                   std::int64_t sequence) {
  std::vector<std::pair<std::uint64_t, int>> candidates;
  for (int i = 0; i < length; ++i) {
    if (std::find(specialIds.begin(), specialIds.end(), ids[i]) != specialIds.end()) continue;
    candidates.emplace_back(lensMaskKey(seed, sequence, i), i);
  }
  if (candidates.empty()) return {};
  // round(0.15 n) in integers (halves up), at least one.
  const auto n = static_cast<std::int64_t>(candidates.size());
  const auto count = static_cast<std::size_t>(std::max<std::int64_t>(1, (15 * n + 50) / 100));
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(count),
                    candidates.end());
  std::vector<int> positions;
  for (std::size_t k = 0; k < count; ++k) positions.push_back(candidates[k].second);
  std::sort(positions.begin(), positions.end());
  return positions;
}

}  // namespace attnlab::analysis
